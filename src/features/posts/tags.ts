// A post's tags (docs/api.md "Tags"): at most ten, each trimmed, lower-cased and in Unicode NFC,
// of 1 to 32 characters, without repeats. What a client sends is normalized here before it is
// stored, so `Go`, ` go ` and `GO` are one tag.
import { RuleViolation } from '../../shared/errors.js'

export const MAX_TAGS = 10
export const MAX_TAG_LENGTH = 32

/** A tag as it is stored and compared. */
export const normalizedTag = (tag: string) => tag.normalize('NFC').trim().toLowerCase().normalize('NFC')

/** The tags as stored, in the order first given; 422 on `tags` for an empty or too long one, or too many. */
export function normalizedTags(tags: readonly string[]): string[] {
  const normalized = [...new Set(tags.map(normalizedTag))]
  const wrong = normalized.find((tag) => tag.length === 0 || [...tag].length > MAX_TAG_LENGTH)
  if (wrong !== undefined) throw new RuleViolation('tags', `Each tag must have 1 to ${MAX_TAG_LENGTH} characters once trimmed`, 'value_error.tag')
  if (normalized.length > MAX_TAGS) throw new RuleViolation('tags', `A post has at most ${MAX_TAGS} tags`, 'value_error.tags')
  return normalized
}

/** The tags column's JSON text as tags. */
export function tagsOf(column: string): string[] {
  const parsed = JSON.parse(column) as unknown
  return Array.isArray(parsed) ? parsed.filter((tag): tag is string => typeof tag === 'string') : []
}
