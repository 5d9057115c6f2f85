/**
 * Text PostgreSQL cannot store: NUL in `text` and `jsonb`, and lone surrogates (JSON `"\ud800"`),
 * which have no UTF-8 form. Stored, either failed as a 500 or changed the text.
 */
// eslint-disable-next-line no-control-regex -- matching NUL is the point.
const UNSTORABLE = /\u0000|\p{Cs}/u;

export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/**
 * How deep a JSON body may nest (objects and arrays; the body itself is the first level). No
 * route takes more than a few levels, and a route that serializes what it was given
 * (`JSON.stringify` recurses: GraphQL's forwarded variables) overflowed the stack at a few
 * thousand, 10 KB of `[`, and answered 500.
 */
export const MAX_JSON_BODY_DEPTH = 64;

/**
 * What a parsed JSON body may not hold, as the issue naming where, or undefined: text
 * PostgreSQL cannot store, keys included (`body.filters.fields.a: text must not contain ...`),
 * or nesting deeper than MAX_JSON_BODY_DEPTH. Walked without recursion: the nesting depth is the
 * client's to choose.
 */
export function jsonBodyIssue(value: unknown, root = 'body'): string | undefined {
  const pending: [unknown, string, number][] = [[value, root, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, path, depth] = next;
    if (typeof item === 'string') {
      if (!isStorableText(item)) return unstorable(path);
    } else if (item !== null && typeof item === 'object') {
      if (depth > MAX_JSON_BODY_DEPTH) return `${root}: nests deeper than ${MAX_JSON_BODY_DEPTH} levels of objects and arrays`;
      for (const [key, child] of Object.entries(item)) {
        if (!isStorableText(key)) return unstorable(path);
        pending.push([child, `${path}.${key}`, depth + 1]);
      }
    }
  }
  return undefined;
}

function unstorable(path: string): string {
  return `${path}: text must not contain NUL (U+0000) or lone surrogates`;
}
