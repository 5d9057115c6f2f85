import { WireType } from '@protobuf-ts/runtime';
import type { CheckHttpRequest } from '../envoy-types.js';
import { MalformedMessage } from '../unary-grpc-server.js';
import { tagOf, WireReader } from './wire.js';

const DELIMITED = WireType.LengthDelimited;
/** `CheckRequest.attributes`. */
const ATTRIBUTES = tagOf(1, DELIMITED);
/** `AttributeContext.source` (a Peer), `Peer.address`, `Address.socket_address`, `SocketAddress.address`. */
const SOURCE = tagOf(1, DELIMITED);
const PEER_ADDRESS = tagOf(1, DELIMITED);
const SOCKET_ADDRESS = tagOf(1, DELIMITED);
const SOCKET_IP = tagOf(2, DELIMITED);
/** `AttributeContext.request`. */
const REQUEST = tagOf(4, DELIMITED);
/** `AttributeContext.Request.http`. */
const HTTP = tagOf(2, DELIMITED);
/** `AttributeContext.HttpRequest` fields. */
const ID = tagOf(1, DELIMITED);
const METHOD = tagOf(2, DELIMITED);
const HEADERS = tagOf(3, DELIMITED);
const PATH = tagOf(4, DELIMITED);
const HOST = tagOf(5, DELIMITED);
const HEADER_MAP = tagOf(13, DELIMITED);
/** A map entry's key and value; `HeaderValue.key`, `.value`, `.raw_value` (`HeaderMap.headers` is field 1 too). */
const KEY = tagOf(1, DELIMITED);
const VALUE = tagOf(2, DELIMITED);
const RAW_VALUE = tagOf(3, DELIMITED);
const HEADER_VALUE = tagOf(1, DELIMITED);

/**
 * `envoy.service.auth.v3.CheckRequest` → the HTTP request it describes
 * (`attributes.request.http`), or undefined when it carries none. Of the headers only those
 * named in `headers` are kept (all when it is undefined): authz reads a handful of the ~15 a
 * request carries. Envoy sends them in `headers` (a map), or with `encode_raw_headers` in
 * `header_map` (a list of HeaderValue with `raw_value` bytes, one entry per header line), whose
 * repeated names are joined with "," as Envoy joins them in the map. Absent strings stay
 * undefined; `headers` has no prototype (a header may be named `constructor`). Every other field, unknown ones included, is skipped; a known field number sent
 * with another wire type is skipped too, never misread. Protobuf's merge rule holds: a message
 * field sent twice is read as one.
 */
export function decodeCheckRequest<Name extends string = string>(bytes: Buffer, headers?: ReadonlySet<Name>): CheckHttpRequest<Name> | undefined {
  try {
    const reader = new WireReader(bytes);
    let http: (CheckHttpRequest & { headers: Record<string, string> }) | undefined;
    let sourceIp: string | undefined;
    while (reader.pos < reader.length) {
      const tag = reader.tag();
      if (tag !== ATTRIBUTES) {
        reader.skip(tag);
        continue;
      }
      const attributesEnd = reader.enter();
      while (reader.pos < attributesEnd) {
        const attribute = reader.tag();
        if (attribute === SOURCE) {
          sourceIp = readNested(reader, reader.enter(), [PEER_ADDRESS, SOCKET_ADDRESS, SOCKET_IP]) ?? sourceIp;
          continue;
        }
        if (attribute !== REQUEST) {
          reader.skip(attribute);
          continue;
        }
        const requestEnd = reader.enter();
        while (reader.pos < requestEnd) {
          const field = reader.tag();
          if (field === HTTP) http = readHttpRequest(reader, reader.enter(), http ?? { headers: Object.create(null) as Record<string, string> }, headers as ReadonlySet<string> | undefined);
          else reader.skip(field);
        }
      }
    }
    if (http && sourceIp !== undefined) http.sourceIp = sourceIp;
    return http as CheckHttpRequest<Name> | undefined;
  } catch (error) {
    throw new MalformedMessage(`The CheckRequest does not decode: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The string at the end of a path of message fields (each tag one level down), the last one sent winning; skips everything else. */
function readNested(reader: WireReader, end: number, path: readonly number[]): string | undefined {
  const [tag, ...rest] = path;
  let found: string | undefined;
  while (reader.pos < end) {
    const field = reader.tag();
    if (field !== tag) reader.skip(field);
    else if (rest.length === 0) found = reader.string();
    else found = readNested(reader, reader.enter(), rest) ?? found;
  }
  return found;
}

function readHttpRequest(
  reader: WireReader, end: number, http: CheckHttpRequest & { headers: Record<string, string> }, wanted: ReadonlySet<string> | undefined,
): CheckHttpRequest & { headers: Record<string, string> } {
  while (reader.pos < end) {
    const tag = reader.tag();
    switch (tag) {
      case ID: http.id = reader.string(); break;
      case METHOD: http.method = reader.string(); break;
      case PATH: http.path = reader.string(); break;
      case HOST: http.host = reader.string(); break;
      case HEADERS: readMapEntry(reader, reader.enter(), http.headers, wanted); break;
      case HEADER_MAP: readHeaderMap(reader, reader.enter(), http.headers, wanted); break;
      default: reader.skip(tag);
    }
  }
  return http;
}

/** One `map<string, string>` entry: a key, a value, either absent for the empty string; the last entry of a key wins. */
function readMapEntry(reader: WireReader, end: number, headers: Record<string, string>, wanted: ReadonlySet<string> | undefined): void {
  let key = '';
  let value = -1;
  while (reader.pos < end) {
    const tag = reader.tag();
    if (tag === KEY) key = reader.string();
    else if (tag === VALUE) value = reader.skipDelimited();
    else reader.skip(tag);
  }
  if (wanted && !wanted.has(key)) return;
  headers[key] = value < 0 ? '' : reader.stringAt(value, 'utf8');
}

/**
 * `config.core.v3.HeaderMap`: a list of HeaderValue, repeated names joined with ",". A
 * `raw_value` is read as Latin-1, one character per byte, as Node's HTTP server reads the same
 * header on a request that reaches the gateway directly.
 */
function readHeaderMap(reader: WireReader, end: number, headers: Record<string, string>, wanted: ReadonlySet<string> | undefined): void {
  while (reader.pos < end) {
    const tag = reader.tag();
    if (tag !== HEADER_VALUE) {
      reader.skip(tag);
      continue;
    }
    const valueEnd = reader.enter();
    let key = '';
    let value = -1;
    let raw = false;
    while (reader.pos < valueEnd) {
      const field = reader.tag();
      if (field === KEY) key = reader.string();
      else if (field === VALUE || field === RAW_VALUE) {
        value = reader.skipDelimited();
        raw = field === RAW_VALUE;
      } else reader.skip(field);
    }
    if (wanted && !wanted.has(key)) continue;
    const text = value < 0 ? '' : reader.stringAt(value, raw ? 'latin1' : 'utf8');
    const earlier = headers[key];
    headers[key] = earlier === undefined ? text : `${earlier},${text}`;
  }
}
