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
 * Where a parsed JSON value holds unstorable text, keys included (`body.filters.fields.a`), or
 * undefined. Walked without recursion: the nesting depth is the client's to choose.
 */
export function unstorableTextAt(value: unknown, root = 'body'): string | undefined {
  const pending: [unknown, string][] = [[value, root]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, path] = next;
    if (typeof item === 'string') {
      if (!isStorableText(item)) return path;
    } else if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) {
        if (!isStorableText(key)) return path;
        pending.push([child, `${path}.${key}`]);
      }
    }
  }
  return undefined;
}
