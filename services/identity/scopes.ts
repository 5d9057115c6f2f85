/** The scopes of the spec's Authentication section. */
export const SCOPES = ['data', 'streams', 'manage', 'zkLogin'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
