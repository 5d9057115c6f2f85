/**
 * The `api_key` query parameter (spec: Authentication 2) in whatever spelling reaches us:
 * percent-encoded (`api%5Fkey`), in any case. Used to refuse it where it is not accepted, to cut
 * it from logged URLs and to drop it from redirects, so a key never travels further than needed.
 */
const QUERY_KEY_NAME = 'api_key';

export function isQueryKeyName(rawName: string): boolean {
  return decodeComponent(rawName).toLowerCase() === QUERY_KEY_NAME;
}

/** Whether the URL's query carries the parameter, in any spelling. */
export function hasQueryKey(url: string): boolean {
  const query = queryOf(url);
  return query !== undefined && query.split('&').some((pair) => isQueryKeyName(nameOf(pair)));
}

/** The URL without the parameter (every occurrence, any spelling); the rest is kept byte for byte. */
export function withoutQueryKey(url: string): string {
  const query = queryOf(url);
  if (query === undefined) return url;
  const path = url.slice(0, url.indexOf('?'));
  const kept = query.split('&').filter((pair) => !isQueryKeyName(nameOf(pair)));
  return kept.length > 0 ? `${path}?${kept.join('&')}` : path;
}

/**
 * Anything shaped like a key (`svc_pat_` + base58, identity/key-value.ts) anywhere in a URL: a
 * caller who puts a key where it does not belong (`?apikey=`, `?key=`, a path segment) sent a
 * working secret all the same, and a log line must not keep it.
 */
const KEY_SHAPED = /svc_pat_[1-9A-HJ-NP-Za-km-z]+/g;

/** The URL as logged: the `api_key` parameter's value and every key-shaped text replaced by `censor`. */
export function redactLoggedUrl(url: string, censor: string): string {
  const redacted = redactQueryKey(url, censor);
  return redacted.includes('svc_pat_') ? redacted.replace(KEY_SHAPED, `svc_pat_${censor}`) : redacted;
}

/** The URL with the parameter's value replaced by `censor` (for logs). */
export function redactQueryKey(url: string, censor: string): string {
  const query = queryOf(url);
  if (query === undefined) return url;
  const path = url.slice(0, url.indexOf('?'));
  const pairs = query.split('&').map((pair) => (isQueryKeyName(nameOf(pair)) ? `${nameOf(pair)}=${censor}` : pair));
  return `${path}?${pairs.join('&')}`;
}

function queryOf(url: string): string | undefined {
  const at = url.indexOf('?');
  return at === -1 ? undefined : url.slice(at + 1);
}

function nameOf(pair: string): string {
  const at = pair.indexOf('=');
  return at === -1 ? pair : pair.slice(0, at);
}

function decodeComponent(text: string): string {
  const plain = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plain);
  } catch {
    // A malformed escape elsewhere in the name: decode what can be decoded, escape by escape.
    return plain.replace(/%[0-9a-fA-F]{2}/g, (escape) => String.fromCharCode(parseInt(escape.slice(1), 16)));
  }
}
