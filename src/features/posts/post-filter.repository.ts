// A checked post filter as SQL (src/db/filter-sql.ts), inside the post policy:
// posts.repository.ts ANDs it with the policy's own condition, and a private field is compared
// only on the posts whose private fields the reader reads (mayReadPrivateFields); so is a sort's.
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely'
import { expressionBuilder } from 'kysely'

import type { FieldSortSql } from '../../db/filter-sql.js'
import { fieldSortSql, filterSql } from '../../db/filter-sql.js'
import type { Database, Executor } from '../../db/schema.js'
import type { FieldTarget, FilterNode } from '../content-fields/index.js'
import type { Reader } from './post-policy.js'
import { orgsOf } from './post-policy.js'

type PostsExpressions = ExpressionBuilder<Database, 'posts'>

/** The filter's condition for this reader. */
export function filterCondition(eb: PostsExpressions, db: Executor, node: FilterNode, reader: Reader): Expression<SqlBool> {
  return filterSql(db, node, { table: 'posts', privateGuard: reader.isSuperuser ? undefined : readsPrivateFields(eb, reader) })
}

/** A field as a sort key for this reader: a private one is valueless on the posts whose private fields they do not read. */
export function fieldSortKey(db: Executor, target: FieldTarget, reader: Reader): FieldSortSql {
  const guarded = target.level === 'private' && !reader.isSuperuser
  return fieldSortSql(db, 'posts', target.field, { privateGuard: guarded ? readsPrivateFields(expressionBuilder<Database, 'posts'>(), reader) : undefined })
}

function readsPrivateFields(eb: PostsExpressions, reader: Reader): Expression<SqlBool> {
  const adminOrgs = orgsOf(reader, 'org_admin')
  const author = eb('posts.author_id', '=', reader.userId ?? 0)
  if (adminOrgs.length === 0) return author
  return eb.or([author, eb.and([eb('posts.org_id', 'in', adminOrgs), eb('posts.visibility', '<>', 'private')])])
}
