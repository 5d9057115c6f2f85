const MAX_SLUG_LENGTH = 48;

/**
 * A project's slug: its name in lower-case ASCII letters, digits and single hyphens. Accents
 * fold to their base letters; everything else separates words. An empty result means the name
 * is unusable (INVALID_PROJECT_NAME).
 */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/g, '');
}
