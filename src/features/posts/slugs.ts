// A post's slug: the last part of its address under its owner (`/posts/by-slug/{owner}/{slug}`),
// made from its title by a well-kept library (transliterated to ASCII, lowercase, words joined by
// hyphens), editable, and unique among its owner's posts (PostService picks a free one).
import { randomBytes } from 'node:crypto'

import slugify from 'slugify'

export const SLUG_MAX_LENGTH = 80
/** Lowercase letters and digits in words joined by single hyphens. */
export const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$'
/** What a title with nothing to transliterate (only emoji, or a script the library does not map) becomes. */
export const FALLBACK_SLUG = 'post'

/** Room left for a `-<n>` or `-<six characters>` that makes a slug unique. */
const STEM_LENGTH = SLUG_MAX_LENGTH - 8

/** The slug cut at a word's end to STEM_LENGTH, when it is longer. */
function stemOf(slug: string): string {
  if (slug.length <= STEM_LENGTH) return slug
  const cut = slug.slice(0, STEM_LENGTH)
  const lastHyphen = cut.lastIndexOf('-')
  return lastHyphen > 0 ? cut.slice(0, lastHyphen) : cut
}

/** The title as a slug, short enough to take a suffix. */
export function slugFromTitle(title: string): string {
  const whole = slugify(title, { lower: true, strict: true, locale: 'en', trim: true })
  return whole === '' ? FALLBACK_SLUG : stemOf(whole)
}

/** The scope a post's slug is unique in: its organization's, or its author's. */
export const slugScope = (orgId: number | null, authorId: number) => (orgId === null ? `u:${authorId}` : `o:${orgId}`)

/** The first candidates for a post's slug: the base itself, then `base-2` to `base-9` (the base cut to leave them room). */
export function numberedSlugs(base: string): string[] {
  return [base, ...Array.from({ length: 8 }, (_, index) => `${stemOf(base)}-${index + 2}`)]
}

const RANDOM_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'

/** Candidates past the numbered ones: `base-` and six random letters or digits, four of them. */
export function randomSlugs(base: string, count = 4): string[] {
  return Array.from({ length: count }, () => `${stemOf(base)}-${Array.from(randomBytes(6), (byte) => RANDOM_ALPHABET[byte % RANDOM_ALPHABET.length]).join('')}`)
}
