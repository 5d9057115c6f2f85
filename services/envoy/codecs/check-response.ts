import { WireType } from '@protobuf-ts/runtime';
import type { CheckResponse, HeaderValueOption } from '../envoy-types.js';
import { headerValueSize, writeHeaderValue } from './header-value.js';
import { delimitedSize, FrameWriter, repeatedStringSize, stringFieldSize, tagOf, varintFieldSize } from './wire.js';

const DELIMITED = WireType.LengthDelimited;
/** `CheckResponse`. */
const STATUS = tagOf(1, DELIMITED);
const DENIED_RESPONSE = tagOf(2, DELIMITED);
const OK_RESPONSE = tagOf(3, DELIMITED);
/** `google.rpc.Status`; `type.v3.HttpStatus.code` is field 1 too. */
const CODE = tagOf(1, WireType.Varint);
const MESSAGE = tagOf(2, DELIMITED);
/** `DeniedHttpResponse`. */
const DENIED_STATUS = tagOf(1, DELIMITED);
const DENIED_HEADERS = tagOf(2, DELIMITED);
const BODY = tagOf(3, DELIMITED);
/** `OkHttpResponse`. */
const OK_HEADERS = tagOf(2, DELIMITED);
const HEADERS_TO_REMOVE = tagOf(5, DELIMITED);
/** `config.core.v3.HeaderValueOption`. */
const HEADER = tagOf(1, DELIMITED);
const APPEND_ACTION = tagOf(3, WireType.Varint);

/**
 * `envoy.service.auth.v3.CheckResponse` as one gRPC frame: the fields authz answers with
 * (`status`, and `ok_response` with headers and headers to remove, or `denied_response`), in
 * field order, proto3 defaults left out, a present message always written (an OK `status` is
 * an empty message, which the client reads as code 0).
 */
export function encodeCheckResponse(response: CheckResponse): Buffer {
  const statusSize = rpcStatusSize(response.status);
  const denied = response.denied_response;
  const deniedSize = denied ? deniedResponseSize(denied) : 0;
  const ok = response.ok_response;
  const okSize = ok ? okResponseSize(ok) : 0;
  const writer = new FrameWriter(delimitedSize(statusSize) + (denied ? delimitedSize(deniedSize) : 0) + (ok ? delimitedSize(okSize) : 0));
  writer.message(STATUS, statusSize).varintField(CODE, response.status.code).stringField(MESSAGE, response.status.message);
  if (denied) {
    writer.message(DENIED_RESPONSE, deniedSize).message(DENIED_STATUS, varintFieldSize(denied.status.code)).varintField(CODE, denied.status.code);
    for (const option of denied.headers) writeHeaderValueOption(writer, DENIED_HEADERS, option);
    writer.stringField(BODY, denied.body);
  }
  if (ok) {
    writer.message(OK_RESPONSE, okSize);
    for (const option of ok.headers) writeHeaderValueOption(writer, OK_HEADERS, option);
    for (const name of ok.headers_to_remove) writer.repeatedString(HEADERS_TO_REMOVE, name);
  }
  return writer.finish();
}

function rpcStatusSize(status: CheckResponse['status']): number {
  return varintFieldSize(status.code) + stringFieldSize(status.message);
}

function deniedResponseSize(denied: NonNullable<CheckResponse['denied_response']>): number {
  return delimitedSize(varintFieldSize(denied.status.code)) + headerOptionsSize(denied.headers) + stringFieldSize(denied.body);
}

function okResponseSize(ok: NonNullable<CheckResponse['ok_response']>): number {
  let size = headerOptionsSize(ok.headers);
  for (const name of ok.headers_to_remove) size += repeatedStringSize(name);
  return size;
}

function headerOptionsSize(options: readonly HeaderValueOption[]): number {
  let size = 0;
  for (const option of options) size += delimitedSize(headerValueOptionSize(option));
  return size;
}

function headerValueOptionSize(option: HeaderValueOption): number {
  return delimitedSize(headerValueSize(option.header)) + varintFieldSize(option.append_action);
}

function writeHeaderValueOption(writer: FrameWriter, tag: number, option: HeaderValueOption): void {
  writer.message(tag, headerValueOptionSize(option));
  writeHeaderValue(writer, HEADER, option.header);
  writer.varintField(APPEND_ACTION, option.append_action);
}
