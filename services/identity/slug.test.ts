import { describe, expect, it } from 'vitest';
import { slugify } from './slug.js';

describe('slugify', () => {
  it.each([
    ['My App', 'my-app'],
    ['  spaced   out  ', 'spaced-out'],
    ['Café Déjà Vu', 'cafe-deja-vu'],
    ['naïve façade', 'naive-facade'],
    ['ＦＵＬＬ　ＷＩＤＴＨ', 'full-width'],
    ['ﬁle', 'file'],
    ['a_b.c/d\\e', 'a-b-c-d-e'],
    ['--x--', 'x'],
    ['123', '123'],
    ['🚀 launch', 'launch'],
    ['x\u0000y', 'x-y'],
    ['\u202eevil', 'evil'],
  ])('%j → %j', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it.each(['', '   ', '!!!', '日本語', 'Проект', 'مرحبا', '🚀🚀'])('%j has no letter or digit it can keep: empty', (name) => {
    expect(slugify(name)).toBe('');
  });

  it('is at most 48 characters and never ends with a hyphen', () => {
    expect(slugify('a'.repeat(100))).toBe('a'.repeat(48));
    const cut = slugify(`${'a'.repeat(47)} b`);
    expect(cut).toBe('a'.repeat(47));
    expect(cut.endsWith('-')).toBe(false);
  });

  it('is idempotent', () => {
    for (const name of ['My App', 'Café Déjà Vu', 'a--b']) expect(slugify(slugify(name))).toBe(slugify(name));
  });
});
