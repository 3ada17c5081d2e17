// A checked filter (filter-language.ts) as SQL: every literal a parameter, every name one of the
// allow-listed columns or a declared field's path, on both databases. posts.repository.ts ANDs it
// with the post policy's own condition, so a filter narrows what the caller may list and never
// widens it.
import type { Expression, ExpressionBuilder, RawBuilder, SqlBool } from 'kysely'
import { sql } from 'kysely'

import { isPostgres } from '../../db/dialect.js'
import type { Database, Executor } from '../../db/schema.js'
import { likeContains } from '../../shared/like-pattern.js'
import type { FilterNode, FilterOperator, FilterTarget } from './filter-language.js'
import type { Reader } from './post-policy.js'
import { orgsOf } from './post-policy.js'

type PostsExpressions = ExpressionBuilder<Database, 'posts'>
type Compare = Extract<FilterNode, { kind: 'compare' }>

const NEGATED: Partial<Record<FilterOperator, FilterOperator>> = { '!~': '~' }

/** The filter's condition for this reader. */
export function filterCondition(eb: PostsExpressions, db: Executor, node: FilterNode, reader: Reader): Expression<SqlBool> {
  if (node.kind !== 'compare') {
    const terms = node.terms.map((term) => filterCondition(eb, db, term, reader))
    return node.kind === 'and' ? eb.and(terms) : eb.or(terms)
  }
  const condition = comparison(eb, db, node)
  // A private field is compared only where the reader reads it (mayReadPrivateFields): elsewhere the
  // comparison is false whatever the value, so a filter tells nothing of a field one may not read.
  if ('field' in node.target && node.target.level === 'private' && !reader.isSuperuser) return eb.and([readsPrivateFields(eb, reader), condition])
  return condition
}

function readsPrivateFields(eb: PostsExpressions, reader: Reader): Expression<SqlBool> {
  const adminOrgs = orgsOf(reader, 'org_admin')
  const author = eb('posts.author_id', '=', reader.userId ?? 0)
  if (adminOrgs.length === 0) return author
  return eb.or([author, eb.and([eb('posts.org_id', 'in', adminOrgs), eb('posts.visibility', '<>', 'private')])])
}

function comparison(eb: PostsExpressions, db: Executor, node: Compare): Expression<SqlBool> {
  const negatedOf = NEGATED[node.op]
  // As every comparison, a negated one is false on a post without the field (`= null` finds those).
  if (negatedOf) return eb.and([sql<SqlBool>`${valueOf(db, node.target)} is not null`, eb.not(comparison(eb, db, { ...node, op: negatedOf }))])
  const { target, op, value } = node
  if (value === null) return sql<SqlBool>`${valueOf(db, target)} ${sql.raw(op === '=' ? 'is null' : 'is not null')}`
  if (op === '~') {
    if ('field' in target && target.kind === 'strings') return contains(db, target.field, String(value))
    return sql<SqlBool>`lower(${textOf(db, target)}) like ${likeContains(String(value))} escape '\\'`
  }
  return sql<SqlBool>`${valueOf(db, target)} ${sql.raw(op)} ${literalOf(db, target, value)}`
}

/** The column, or the field's value: SQLite's json_extract, PostgreSQL's jsonb member (compared as jsonb, never cast: a value stored under an older schema compares, never fails). */
function valueOf(db: Executor, target: FilterTarget): RawBuilder<unknown> {
  if ('column' in target) return sql.ref(`posts.${target.column}`)
  return isPostgres(db) ? sql`(posts.fields -> cast(${target.field} as text))` : sql`json_extract(posts.fields, ${`$.${target.field}`})`
}

function textOf(db: Executor, target: FilterTarget): RawBuilder<unknown> {
  if ('column' in target) return sql.ref(`posts.${target.column}`)
  return isPostgres(db) ? sql`(posts.fields ->> cast(${target.field} as text))` : sql`json_extract(posts.fields, ${`$.${target.field}`})`
}

function literalOf(db: Executor, target: FilterTarget, value: string | number | boolean): RawBuilder<unknown> {
  if ('field' in target) {
    if (isPostgres(db)) return sql`cast(${JSON.stringify(value)} as jsonb)`
    // json_extract gives a JSON true or false as 1 or 0.
    return sql`${typeof value === 'boolean' ? Number(value) : value}`
  }
  return sql`${value}`
}

/** Whether a list of texts holds the item, exactly. */
function contains(db: Executor, field: string, item: string): Expression<SqlBool> {
  if (isPostgres(db)) return sql<SqlBool>`(posts.fields -> cast(${field} as text)) @> cast(${JSON.stringify([item])} as jsonb)`
  return sql<SqlBool>`exists (select 1 from json_each(posts.fields, ${`$.${field}`}) where json_each.value = ${item})`
}
