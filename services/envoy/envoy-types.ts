/**
 * The parts of Envoy's messages our services read and write, with the protos' field names and
 * enums as numbers: what the codecs (codecs/) decode and encode, and, give or take the defaults
 * it fills in, what a test client made with @grpc/proto-loader (test/support/envoy-protos.ts) receives.
 */

/** `envoy.config.core.v3.HeaderValue`. */
export interface HeaderValue {
  key: string;
  value: string;
}

/** `envoy.config.core.v3.HeaderValueOption.HeaderAppendAction`. */
export const OVERWRITE_IF_EXISTS_OR_ADD = 2;

export interface HeaderValueOption {
  header: HeaderValue;
  append_action: number;
}

/**
 * `envoy.service.auth.v3.AttributeContext.HttpRequest`, the part ext_authz decides on (absent
 * strings undefined), with the headers named `Name` (authz: `CHECKED_HEADERS`).
 */
export interface CheckHttpRequest<Name extends string = string> {
  id?: string;
  method?: string;
  /** Lower-case header names; pseudo-headers (`:authority`, `:path`) included by Envoy. */
  headers: Partial<Record<Name, string>>;
  /** The request target as the client sent it, query included. */
  path?: string;
  host?: string;
  /** The downstream peer's IP (`attributes.source.address.socket_address.address`): the client as Envoy trusts it (`xff_num_trusted_hops: 0`). */
  sourceIp?: string;
}

/** `google.rpc.Code` values used here. */
export const RPC_OK = 0;
export const RPC_PERMISSION_DENIED = 7;

export interface CheckResponse {
  status: { code: number; message?: string };
  ok_response?: { headers: HeaderValueOption[]; headers_to_remove: string[] };
  denied_response?: { status: { code: number }; headers: HeaderValueOption[]; body: string };
}

/** `envoy.extensions.common.ratelimit.v3.RateLimitDescriptor`. */
export interface RateLimitDescriptor {
  entries?: { key?: string; value?: string }[];
}

export interface RateLimitRequest {
  domain?: string;
  descriptors?: RateLimitDescriptor[];
  hits_addend?: number;
}

/** `envoy.service.ratelimit.v3.RateLimitResponse.Code`. */
export const RLS_OK = 1;
export const RLS_OVER_LIMIT = 2;
/** `RateLimitResponse.RateLimit.Unit.SECOND`. */
export const UNIT_SECOND = 1;

export interface DescriptorStatus {
  code: number;
  current_limit?: { requests_per_unit: number; unit: number };
  limit_remaining?: number;
  /** `seconds` is an int64: a string in a test client's answer (`longs: String`). */
  duration_until_reset?: { seconds: number; nanos: number };
}

export interface RateLimitResponse {
  overall_code: number;
  statuses: DescriptorStatus[];
  response_headers_to_add: HeaderValue[];
  raw_body?: Buffer;
}
