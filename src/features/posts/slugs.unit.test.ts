// How a title becomes a slug, and the candidates that make one unique (slugs.ts).
import { describe, expect, it } from 'vitest'

import { FALLBACK_SLUG, numberedSlugs, randomSlugs, SLUG_MAX_LENGTH, SLUG_PATTERN, slugFromTitle, slugScope } from './slugs.js'

describe('slugFromTitle', () => {
  it.each([
    ['Hello, World!', 'hello-world'],
    ['Ça va très bien — 2026', 'ca-va-tres-bien-2026'],
    ['  --Rust & Go: über alles--  ', 'rust-and-go-uber-alles'],
    ['Straße', 'strasse'],
    ['🚀🚀', FALLBACK_SLUG],
    ['日本語', FALLBACK_SLUG],
    ['<script>alert(1)</script>', 'lessscriptgreateralert1lessscriptgreater'],
  ])('%j → %j', (title, slug) => {
    expect(slugFromTitle(title)).toBe(slug)
    expect(slug).toMatch(new RegExp(SLUG_PATTERN))
  })

  it('cuts a long title at a word, leaving room for a suffix', () => {
    const slug = slugFromTitle('word '.repeat(40))
    expect(slug.length).toBeLessThanOrEqual(SLUG_MAX_LENGTH - 8)
    expect(slug).toMatch(new RegExp(SLUG_PATTERN))
    expect(slugFromTitle('x'.repeat(200))).toHaveLength(SLUG_MAX_LENGTH - 8)
  })
})

describe('the candidates', () => {
  it('are the base, then -2 to -9, then six random characters, all valid and within the length', () => {
    expect(numberedSlugs('hello')).toEqual(['hello', 'hello-2', 'hello-3', 'hello-4', 'hello-5', 'hello-6', 'hello-7', 'hello-8', 'hello-9'])
    const long = 'a'.repeat(40) + '-' + 'b'.repeat(39)
    for (const candidate of [...numberedSlugs(long), ...randomSlugs(long)]) {
      expect(candidate.length).toBeLessThanOrEqual(SLUG_MAX_LENGTH)
      expect(candidate).toMatch(new RegExp(SLUG_PATTERN))
    }
    expect(numberedSlugs(long)[0]).toBe(long)
    expect(new Set(randomSlugs('hello', 4)).size).toBe(4)
  })

  it("scopes a slug to its organization, or else its author", () => {
    expect(slugScope(7, 3)).toBe('o:7')
    expect(slugScope(null, 3)).toBe('u:3')
  })
})
