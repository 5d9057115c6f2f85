/**
 * URLs taken from chain data (Display fields, validator and coin metadata, name records) as the
 * REST resources give them. Anyone can publish these strings, and an app puts them straight into
 * `<img src>` and `<a href>`: a `javascript:` link runs script in the app's origin when clicked.
 * So only schemes that are inert there pass; anything else is left out of the resource, as an
 * unparsable URL already was. (JSON-RPC passes Display through as the node does.)
 */

/** An image: http(s), `ipfs://` (through a public gateway), or an inline `data:image/…`. */
export function imageUrl(value: string | undefined): string | undefined {
  const parsed = parse(value?.startsWith('ipfs://') ? `https://ipfs.io/ipfs/${value.slice('ipfs://'.length)}` : value);
  if (parsed === undefined) return undefined;
  if (WEB.has(parsed.protocol)) return parsed.href;
  return parsed.protocol === 'data:' && /^image\//i.test(parsed.pathname) ? parsed.href : undefined;
}

/** A link to follow: http(s) only. */
export function linkUrl(value: string | undefined): string | undefined {
  const parsed = parse(value);
  return parsed !== undefined && WEB.has(parsed.protocol) ? parsed.href : undefined;
}

const WEB = new Set(['http:', 'https:']);

function parse(value: string | undefined): URL | undefined {
  if (!value) return undefined;
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}
