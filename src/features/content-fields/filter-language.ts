// `filter` on version 2's lists of posts, users and organizations (docs/api.md "Filter"):
// PocketBase's language, read by a parser Peggy generates from filter-grammar.ts, then held to an
// allow-list: only the list's documented columns (its FilterVocabulary) and the declared custom
// fields, each with the operators and the literal type it takes, and bounds on length, depth and
// terms. The result is a tree filter.repository.ts compiles to parameterized SQL (filter.repository.ts), always inside the
// list's own rule of who may see what.
import peggy from 'peggy'

import { DomainError, RuleViolation } from '../../shared/errors.js'
import type { FilterKind, FilterLiteral as Literal, FilterNode, FilterOperator, FilterTarget } from '../../shared/filter-tree.js'
import type { FieldDeclaration } from './content-schema.js'
import type { CollectionFields } from './field-values.js'
import { FILTER_GRAMMAR } from './filter-grammar.js'

export const FILTER_MAX_LENGTH = 500
export const FILTER_MAX_TERMS = 10
export const FILTER_MAX_DEPTH = 4



/** What one list's filter may name: its columns, which of them may be null, which an index serves. */
export interface FilterVocabulary {
  /** The columns, as the API shows them, with what each holds. */
  readonly columns: Readonly<Record<string, FilterKind>>
  /** The nullable ones: `= null` and `!= null` only make sense there (and on fields, which may be absent). */
  readonly nullable: ReadonlySet<string>
  /** The columns whose equality an index serves: a filter that holds one of them reads few rows. */
  readonly indexed: ReadonlySet<string>
  /** Who reads a private field of these records, for the refusal of an anonymous caller ("a post's editors"). */
  readonly privateReaders: string
  /** What the list holds, for messages ("posts"). */
  readonly records: string
}

type Parsed =
  | { kind: 'and' | 'or'; terms: Parsed[] }
  | { kind: 'group'; inner: Parsed }
  | { kind: 'compare'; name: string; op: FilterOperator; value: Literal; at: number }

let parser: peggy.Parser | undefined
/** Generated on the first filter, not at start: most processes never read one. */
const parserOf = () => (parser ??= peggy.generate(FILTER_GRAMMAR))

export const invalidFilter = (detail: string) => new DomainError('invalid', detail, { code: 'invalid_filter' })

/** Who reads: what decides which fields a filter may name. */
export interface FilterReader {
  signedIn: boolean
  isSuperuser: boolean
}

const ORDERED: readonly FilterOperator[] = ['=', '!=', '>', '>=', '<', '<=']
const EQUALITY: readonly FilterOperator[] = ['=', '!=']
const CONTAINS: readonly FilterOperator[] = ['~', '!~']

function operatorsOf(kind: FilterKind): readonly FilterOperator[] {
  if (typeof kind === 'object' || kind === 'boolean') return EQUALITY
  if (kind === 'strings') return CONTAINS
  if (kind === 'text') return [...ORDERED, ...CONTAINS]
  return ORDERED
}

function kindOfField(field: FieldDeclaration): FilterKind {
  const value = field.value as { type?: string; format?: string; enum?: string[] }
  if (value.type === 'array') return 'strings'
  if (value.enum) return { oneOf: value.enum }
  if (value.format === 'date-time') return 'time'
  if (value.type === 'integer' || value.type === 'number' || value.type === 'boolean') return value.type
  return 'text'
}

const describe = (kind: FilterKind) => (typeof kind === 'object' ? `one of ${kind.oneOf.map((item) => JSON.stringify(item)).join(', ')}` : { integer: 'an integer', number: 'a number', text: 'a text', time: 'a date-time text', boolean: 'true or false', strings: 'a text (an item of the list)' }[kind])

/** The literal as the column or field holds it; an InvalidFilter when it cannot be one. */
function literalFor(kind: FilterKind, value: Literal, where: string): Literal {
  const fail = () => invalidFilter(`${where}: expected ${describe(kind)}, got ${JSON.stringify(value)}.`)
  if (typeof kind === 'object') {
    if (typeof value !== 'string' || !kind.oneOf.includes(value)) throw fail()
    return value
  }
  switch (kind) {
    case 'integer':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw fail()
      return value
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw fail()
      return value
    case 'boolean':
      if (typeof value !== 'boolean') throw fail()
      return value
    case 'time': {
      // Compared as stored: every time is written as an ISO 8601 text in UTC to the millisecond.
      const time = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(value) ? new Date(value) : undefined
      if (!time || Number.isNaN(time.getTime())) throw fail()
      return time.toISOString()
    }
    default:
      if (typeof value !== 'string') throw fail()
      return value
  }
}

/**
 * The filter as a checked tree: a 400 invalid_filter saying where and why when it does not parse,
 * names what it may not, compares with the wrong type, or is too large.
 */
export function readFilter(text: string, vocabulary: FilterVocabulary, fields: CollectionFields, reader: FilterReader): FilterNode {
  if (text.length > FILTER_MAX_LENGTH) throw invalidFilter(`The filter is longer than ${FILTER_MAX_LENGTH} characters.`)
  let parsed: Parsed
  try {
    parsed = parserOf().parse(text) as Parsed
  } catch (error) {
    const { message, location } = error as { message: string; location?: { start: { offset: number } } }
    throw invalidFilter(`The filter is not valid at character ${(location?.start.offset ?? 0) + 1}: ${message}`)
  }
  let terms = 0
  const check = (node: Parsed, depth: number): FilterNode => {
    if (node.kind === 'group') return check(node.inner, depth)
    if (node.kind !== 'compare') {
      if (depth >= FILTER_MAX_DEPTH) throw invalidFilter(`The filter nests && and || more than ${FILTER_MAX_DEPTH} deep.`)
      return { kind: node.kind, terms: node.terms.map((term) => check(term, depth + 1)) }
    }
    terms += 1
    if (terms > FILTER_MAX_TERMS) throw invalidFilter(`The filter has more than ${FILTER_MAX_TERMS} comparisons.`)
    const where = `At character ${node.at}, ${node.name}`
    const target = targetOf(node.name, vocabulary, fields, reader, where)
    if (node.value === null) {
      if (!EQUALITY.includes(node.op) || !('field' in target || vocabulary.nullable.has(target.column))) throw invalidFilter(`${where}: only = null and != null, on a field${vocabulary.nullable.size > 0 ? ` or on ${[...vocabulary.nullable].join(' and ')}` : ''}.`)
      return { kind: 'compare', target, op: node.op, value: null }
    }
    if (!operatorsOf(target.kind).includes(node.op)) throw invalidFilter(`${where}: ${node.op} does not apply; use ${operatorsOf(target.kind).join(' ')}.`)
    return { kind: 'compare', target, op: node.op, value: literalFor(target.kind === 'strings' ? 'text' : target.kind, node.value, where) }
  }
  return check(parsed, 0)
}

function targetOf(name: string, vocabulary: FilterVocabulary, fields: CollectionFields, reader: FilterReader, where: string): FilterTarget {
  if (!name.startsWith('fields.')) {
    const kind = Object.hasOwn(vocabulary.columns, name) ? vocabulary.columns[name] : undefined
    if (kind === undefined) throw invalidFilter(`${where}: no such column; filter on ${Object.keys(vocabulary.columns).join(', ')} or fields.<name>.`)
    return { column: name, kind }
  }
  const target = fieldTargetOf(name.slice('fields.'.length), fields, reader, vocabulary.privateReaders)
  if (typeof target === 'string') throw invalidFilter(`${where}: ${target}`)
  return target
}

export type FieldTarget = Extract<FilterTarget, { field: string }>

/**
 * A declared field as a filter or a sort names it, or why the reader may not name it: never what
 * the caller could not read, so neither is a side channel. `privateReaders` says who reads the
 * records' private fields ("a post's editors").
 */
export function fieldTargetOf(name: string, fields: CollectionFields, reader: FilterReader, privateReaders: string): FieldTarget | string {
  const field = fields.declared.find((declared) => declared.name === name)
  if (!field) return 'no such field is declared.'
  if (field.level === 'server' && !reader.isSuperuser) return 'a server field, which only superusers read.'
  if (field.level === 'private' && !reader.signedIn) return `a private field, which only ${privateReaders} read: sign in.`
  return { field: name, kind: kindOfField(field), level: field.level }
}

/**
 * The most rows a filter no index narrows may be checked against: every comparison with a text's
 * contents or a custom field is made row by row, and a page's total counts them all (docs/api.md
 * "Filter"). Beyond it a list is narrowed first (an author, an organization) or refused.
 */
export const UNINDEXED_FILTER_MAX_ROWS = 10_000

/** Whether every row the filter matches is found through an index: an AND with such a comparison, or an OR of them all. */
export function narrowsByIndex(node: FilterNode, vocabulary: FilterVocabulary): boolean {
  if (node.kind !== 'compare') return node.kind === 'and' ? node.terms.some((term) => narrowsByIndex(term, vocabulary)) : node.terms.every((term) => narrowsByIndex(term, vocabulary))
  return 'column' in node.target && vocabulary.indexed.has(node.target.column) && node.op === '=' && node.value !== null
}

/** 422 for a filter no index narrows, of a list of more rows than it may check; `narrowing` says how to narrow this list. */
export const filterTooBroad = (vocabulary: FilterVocabulary, narrowing: string) =>
  new RuleViolation(
    'filter',
    `This filter is for lists of at most ${UNINDEXED_FILTER_MAX_ROWS.toLocaleString('en')} ${vocabulary.records} (docs/api.md "Filter"): ${narrowing}`,
    'filter_too_broad',
    { location: 'query', code: 'filter_too_broad' },
  )
