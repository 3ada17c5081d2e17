// `sort` on version 2's post lists: up to three keys of documented columns and declared custom
// fields, `-` for descending, with the post's id as the last key so that every order is total and
// a cursor page continues exactly after its last post (the cursor carries the sort and the last
// post's values of it).
import { RuleViolation } from '../../shared/errors.js'
import { decodeJsonCursor, encodeJsonCursor, invalidCursor } from '../../shared/json-cursor.js'
import { MAX_ID } from '../../shared/record-id.js'
import type { CollectionFields, FieldTarget, FilterReader } from '../content-fields/index.js'
import { fieldTargetOf } from '../content-fields/index.js'
import { POST_FILTER } from './filter-language.js'

/** The columns a post list sorts on. */
export const SORT_COLUMNS = ['created_at', 'updated_at', 'title', 'comment_count', 'reaction_count'] as const
export type SortColumn = (typeof SORT_COLUMNS)[number]
export const MAX_SORT_KEYS = 3
/**
 * The most posts a sort that is not read from an index may choose from: several keys (only the
 * first is indexed, and the posts that tie on it, most of them for a count, are sorted by the
 * others), a custom field (no index holds one), or on PostgreSQL a kept count (not indexed there).
 * Beyond it a page would sort them all (docs/api.md "Sort").
 */
export const UNINDEXED_SORT_MAX_POSTS = 10_000

/** A sort key: a documented column, or a declared custom field the reader may name. */
export type SortKey = { column: SortColumn; descending: boolean } | (FieldTarget & { descending: boolean })

/** Where a sorted page continues: after the post with these values of the sort's keys, and this id. */
export interface SortedAfter {
  /** A column's value as stored; a field's as its JSON holds it, null where the post has none. */
  values: readonly unknown[]
  id: number
}

/** A key as `sort` names it. */
export const nameOfKey = (key: SortKey) => ('column' in key ? key.column : `fields.${key.field}`)

const invalidSort = (detail: string) => new RuleViolation('sort', detail, 'sort', { location: 'query' })

/**
 * The keys of a `sort` value (the schema has checked its form): a column named twice, or a field
 * that is not declared, that the reader may not read, or that holds a list, is 422.
 */
export function sortKeysOf(sort: string, fields: CollectionFields, reader: FilterReader): SortKey[] {
  const keys = sort.split(',').map((part): SortKey => {
    const name = part.replace(/^-/, '')
    const descending = part.startsWith('-')
    if (!name.startsWith('fields.')) return { column: name as SortColumn, descending }
    const target = fieldTargetOf(name.slice('fields.'.length), fields, reader, POST_FILTER.privateReaders)
    // As a filter, a sort never orders by what the caller could not read.
    if (typeof target === 'string') throw invalidSort(`sort: ${name}: ${target}`)
    if (target.kind === 'strings') throw invalidSort(`sort: ${name} holds a list of texts, which does not sort.`)
    return { ...target, descending }
  })
  if (new Set(keys.map(nameOfKey)).size !== keys.length) throw invalidSort('sort names a column twice')
  return keys
}

/** 422 for a sort not read from an index, of more posts than it may sort. */
export const sortTooBroad = () =>
  new RuleViolation('sort', `This sort is for lists of at most ${UNINDEXED_SORT_MAX_POSTS.toLocaleString('en')} posts (docs/api.md "Sort"): narrow the list (author, organization, search), or sort by one indexed key`, 'sort_too_broad', {
    location: 'query',
    code: 'sort_too_broad',
  })

/** The sort a cursor was written for, as it is compared: the keys in order with their directions. */
const signatureOf = (keys: readonly SortKey[]) => keys.map((key) => `${key.descending ? '-' : ''}${nameOfKey(key)}`).join(',')

const CURSOR_PREFIX = 's'

/** A value the database's integer columns hold (a crafted cursor must not make a query fail). */
const isRowNumber = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= MAX_ID
/** A timestamp as stored: ISO-8601 UTC (SQLite), or PostgreSQL's text of a timestamptz in a UTC session. */
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(?:Z|\+00)$/

/** Whether a cursor's value is one the column can have: what the database compares it with never fails. */
function fitsColumn(column: SortColumn, value: unknown): boolean {
  if (column === 'comment_count' || column === 'reaction_count') return isRowNumber(value)
  if (typeof value !== 'string') return false
  // A title is at most 100 characters, counted as its schema counts them (code points, not UTF-16 units).
  if (column === 'title') return [...value].length <= 100 && !value.includes('\u0000')
  const [, date, time] = TIMESTAMP.exec(value) ?? []
  return date !== undefined && Number.isFinite(Date.parse(`${date}T${time}Z`)) && new Date(`${date}T${time}Z`).toISOString().startsWith(`${date}T${time}`)
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Whether a cursor's value is one a field's JSON can hold: PostgreSQL refuses a JSON text with a
 * NUL or half a surrogate pair, and SQLite compares numbers and texts. Stored values of another
 * type (written under an earlier declaration) are lists or texts of lists on those databases.
 */
function fitsField(value: unknown): boolean {
  if (value === null || typeof value === 'boolean') return true
  if (typeof value === 'number') return Number.isFinite(value)
  if (typeof value === 'string') return !LONE_SURROGATE.test(value) && !value.includes('\u0000')
  if (Array.isArray(value)) return value.every(fitsField)
  return false
}

const fitsKey = (key: SortKey, value: unknown) => ('column' in key ? fitsColumn(key.column, value) : fitsField(value))

/** The cursor of a sorted page: opaque to clients, it names the sort it continues and where. */
export function encodeSortedCursor(keys: readonly SortKey[], after: SortedAfter): string {
  return encodeJsonCursor(CURSOR_PREFIX, [signatureOf(keys), ...after.values, after.id])
}

/** Where a sorted cursor continues; 422 for a cursor this service did not write for this sort. */
export function decodeSortedCursor(keys: readonly SortKey[], cursor: string): SortedAfter {
  const parsed = decodeJsonCursor(CURSOR_PREFIX, cursor)
  if (parsed.length !== keys.length + 2 || parsed[0] !== signatureOf(keys)) throw invalidCursor()
  const values = parsed.slice(1, -1)
  const id = parsed.at(-1)
  const fits = values.every((value, i) => fitsKey(keys[i]!, value))
  if (!fits || !isRowNumber(id) || (id as number) < 1) throw invalidCursor()
  return { values, id: id as number }
}
