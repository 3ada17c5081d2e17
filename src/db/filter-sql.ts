// A checked filter (src/shared/filter-tree.ts, read by the content-fields slice) as SQL: every literal a parameter, every name one of the
// list's allow-listed columns or a declared field's path, on both databases. Each list's
// repository ANDs it with its own rule of who may see what, so a filter narrows what the caller
// may list and never widens it; `privateGuard` is where the caller reads the records' private
// fields (a comparison with one is false everywhere else).
import type { Expression, RawBuilder, SqlBool } from 'kysely'
import { sql } from 'kysely'

import type { FilterNode, FilterOperator, FilterTarget } from '../shared/filter-tree.js'
import { likeContains } from '../shared/like-pattern.js'
import { isPostgres } from './dialect.js'
import type { Executor } from './schema.js'

/** The table a list reads, as its FROM names it. */
export type FilteredTable = 'posts' | 'users' | 'organizations'

export interface FilterScope {
  table: FilteredTable
  /** Where the caller reads a record's private fields; undefined: everywhere (superusers). */
  privateGuard: Expression<SqlBool> | undefined
}

type Compare = Extract<FilterNode, { kind: 'compare' }>

const NEGATED: Partial<Record<FilterOperator, FilterOperator>> = { '!~': '~' }

/** The filter's condition in `scope`. */
export function filterSql(db: Executor, node: FilterNode, scope: FilterScope): RawBuilder<SqlBool> {
  if (node.kind !== 'compare') {
    const terms = node.terms.map((term) => filterSql(db, term, scope))
    return sql<SqlBool>`(${sql.join(terms, sql.raw(node.kind === 'and' ? ' and ' : ' or '))})`
  }
  const condition = comparison(db, node, scope.table)
  // A private field is compared only where the reader reads it: elsewhere the comparison is false
  // whatever the value, so a filter tells nothing of a field one may not read.
  if ('field' in node.target && node.target.level === 'private' && scope.privateGuard !== undefined) return sql<SqlBool>`(${scope.privateGuard} and ${condition})`
  return condition
}

function comparison(db: Executor, node: Compare, table: FilteredTable): RawBuilder<SqlBool> {
  const negatedOf = NEGATED[node.op]
  // As every comparison, a negated one is false on a record without the field (`= null` finds those).
  if (negatedOf) return sql<SqlBool>`(${valueOf(db, table, node.target)} is not null and not ${comparison(db, { ...node, op: negatedOf }, table)})`
  const { target, op, value } = node
  if (value === null) return sql<SqlBool>`(${valueOf(db, table, target)} ${sql.raw(op === '=' ? 'is null' : 'is not null')})`
  if (op === '~') {
    if ('field' in target && target.kind === 'strings') return contains(db, table, target.field, String(value))
    return sql<SqlBool>`(lower(${textOf(db, table, target)}) like ${likeContains(String(value))} escape '\\')`
  }
  return sql<SqlBool>`(${valueOf(db, table, target)} ${sql.raw(op)} ${literalOf(db, target, value)})`
}

const fieldsOf = (table: FilteredTable) => sql.ref(`${table}.fields`)

/** The column, or the field's value: SQLite's json_extract, PostgreSQL's jsonb member (compared as jsonb, never cast: a value stored under an older schema compares, never fails). */
function valueOf(db: Executor, table: FilteredTable, target: FilterTarget): RawBuilder<unknown> {
  if ('column' in target) return sql`${sql.ref(`${table}.${target.column}`)}`
  return isPostgres(db) ? sql`(${fieldsOf(table)} -> cast(${target.field} as text))` : sql`json_extract(${fieldsOf(table)}, ${`$.${target.field}`})`
}

function textOf(db: Executor, table: FilteredTable, target: FilterTarget): RawBuilder<unknown> {
  if ('column' in target) return sql`${sql.ref(`${table}.${target.column}`)}`
  return isPostgres(db) ? sql`(${fieldsOf(table)} ->> cast(${target.field} as text))` : sql`json_extract(${fieldsOf(table)}, ${`$.${target.field}`})`
}

function literalOf(db: Executor, target: FilterTarget, value: string | number | boolean): RawBuilder<unknown> {
  if ('field' in target) {
    if (isPostgres(db)) return sql`cast(${JSON.stringify(value)} as jsonb)`
    // json_extract gives a JSON true or false as 1 or 0.
    return sql`${typeof value === 'boolean' ? Number(value) : value}`
  }
  // A flag column holds 0 or 1 on SQLite and a boolean on PostgreSQL: true and false as each holds them.
  if (typeof value === 'boolean') return isPostgres(db) ? sql`${value}` : sql`${Number(value)}`
  return sql`${value}`
}

/** Whether a list of texts holds the item, exactly. */
function contains(db: Executor, table: FilteredTable, field: string, item: string): RawBuilder<SqlBool> {
  if (isPostgres(db)) return sql<SqlBool>`((${fieldsOf(table)} -> cast(${field} as text)) @> cast(${JSON.stringify([item])} as jsonb))`
  return sql<SqlBool>`exists (select 1 from json_each(${fieldsOf(table)}, ${`$.${field}`}) where json_each.value = ${item})`
}

/** A declared field as a sort key: what orders the rows, what a cursor carries, and that cursor's value again as SQL. */
export interface FieldSortSql {
  /** Never null: a record without the field (or whose private fields the reader does not read) sorts after every value, ascending. */
  order: RawBuilder<unknown>
  /** The value as its JSON holds it, read back as such by the driver; null where the record has none. */
  stored: RawBuilder<unknown>
  /** A cursor's value (stored's) as order holds it. */
  after(value: unknown): RawBuilder<unknown>
}

/**
 * A field's sort key in `scope`. PostgreSQL orders jsonb values (texts by the database's
 * collation, numbers as numbers) and an empty object, which no declared field holds, after them
 * all; SQLite orders json_extract's values (numbers, then texts, true and false as 1 and 0) and an
 * empty blob after them all. Neither is served by an index: the service sorts small lists only.
 */
export function fieldSortSql(db: Executor, table: FilteredTable, field: string, scope: Pick<FilterScope, 'privateGuard'>): FieldSortSql {
  const raw = valueOf(db, table, { field, kind: 'text', level: 'public' })
  const value = scope.privateGuard === undefined ? raw : sql`(case when ${scope.privateGuard} then ${raw} end)`
  const last = isPostgres(db) ? sql`cast('{}' as jsonb)` : sql`x''`
  return {
    order: sql`coalesce(${value}, ${last})`,
    stored: value,
    after: (stored) => {
      if (stored === null) return last
      if (isPostgres(db)) return sql`cast(${JSON.stringify(stored)} as jsonb)`
      // As json_extract gives them: true and false as 1 and 0, a list as its JSON text.
      if (typeof stored === 'boolean') return sql`${Number(stored)}`
      return sql`${typeof stored === 'object' ? JSON.stringify(stored) : stored}`
    },
  }
}
