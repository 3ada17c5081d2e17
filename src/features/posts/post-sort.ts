// `sort` on version 2's post lists: up to three keys of documented columns, `-` for descending,
// with the post's id as the last key so that every order is total and a cursor page continues
// exactly after its last post (the cursor carries the sort and the last post's values of it).
import { RuleViolation } from '../../shared/errors.js'
import type { Post } from './post.js'

/** The columns a post list sorts on, and what a post's value of each is. */
export const SORTABLE = {
  created_at: (post: Post) => post.createdAt,
  updated_at: (post: Post) => post.updatedAt,
  title: (post: Post) => post.title,
  comment_count: (post: Post) => post.commentCount,
  reaction_count: (post: Post) => post.reactionCount,
} as const
export type SortColumn = keyof typeof SORTABLE
export const SORT_COLUMNS = Object.keys(SORTABLE) as SortColumn[]
export const MAX_SORT_KEYS = 3

export interface SortKey {
  column: SortColumn
  descending: boolean
}

/** Where a sorted page continues: after the post with these values of the sort's keys, and this id. */
export interface SortedAfter {
  values: readonly (string | number)[]
  id: number
}

/** The keys of a `sort` value (the schema has checked its form); a column named twice is 422. */
export function sortKeysOf(sort: string): SortKey[] {
  const keys = sort.split(',').map((part) => ({ column: part.replace(/^-/, '') as SortColumn, descending: part.startsWith('-') }))
  if (new Set(keys.map((key) => key.column)).size !== keys.length) throw new RuleViolation('sort', 'sort names a column twice', 'sort', { location: 'query' })
  return keys
}

/** The sort a cursor was written for, as it is compared: the keys in order with their directions. */
const signatureOf = (keys: readonly SortKey[]) => keys.map((key) => `${key.descending ? '-' : ''}${key.column}`).join(',')

const CURSOR_PREFIX = 's'
const INVALID_CURSOR = 'Invalid cursor'

/** The cursor of a sorted page: opaque to clients, it names the sort it continues. */
export function encodeSortedCursor(keys: readonly SortKey[], post: Post): string {
  return CURSOR_PREFIX + Buffer.from(JSON.stringify([signatureOf(keys), ...keys.map((key) => SORTABLE[key.column](post)), post.id])).toString('base64url')
}

/** Where a sorted cursor continues; 422 for a cursor this service did not write for this sort. */
export function decodeSortedCursor(keys: readonly SortKey[], cursor: string): SortedAfter {
  const invalid = () => new RuleViolation('cursor', INVALID_CURSOR, 'cursor', { location: 'query' })
  if (!cursor.startsWith(CURSOR_PREFIX)) throw invalid()
  const text = Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString()
  // Only the cursor as written: base64url decoding forgives stray characters, this does not.
  if (CURSOR_PREFIX + Buffer.from(text).toString('base64url') !== cursor) throw invalid()
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw invalid()
  }
  if (!Array.isArray(parsed) || parsed.length !== keys.length + 2 || parsed[0] !== signatureOf(keys)) throw invalid()
  const values = parsed.slice(1, -1) as unknown[]
  const id = parsed.at(-1) as unknown
  const counted = (column: SortColumn) => column === 'comment_count' || column === 'reaction_count'
  const fits = values.every((value, i) => (counted(keys[i]!.column) ? Number.isSafeInteger(value) : typeof value === 'string' && value.length <= 100))
  if (!fits || !Number.isSafeInteger(id) || (id as number) < 1) throw invalid()
  return { values: values as (string | number)[], id: id as number }
}
