import { CONFIG_DOCS } from './config.js';

/** The Markdown table of every setting, as the README shows it. */
export function configTable(): string {
  const rows = Object.entries(CONFIG_DOCS).map(([name, about]) => `| \`${name}\` | ${about} |`);
  return ['| variable | meaning |', '|---|---|', ...rows].join('\n');
}
