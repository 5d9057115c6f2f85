/**
 * A URL's user name and password (`scheme://user:password@host`) in any text: upstream URLs may
 * carry their provider's credentials there, and Node's fetch quotes the whole URL in its errors
 * ("Request cannot be constructed from a URL that includes credentials: https://user:pass@..."),
 * so an error message may hold a working secret.
 */
// Up to the authority's last @: a password may hold an unencoded @ (`u:p@ss@host`).
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi;

/** The text with every URL's user name and password replaced by `censor` (for logs). */
export function redactUrlCredentials(text: string, censor: string): string {
  return text.includes('@') ? text.replace(URL_USERINFO, `$1${censor}@`) : text;
}
