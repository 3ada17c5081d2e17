// The post policy as SQL for another slice's query (comment search): whether the post a row names
// is one a scope lists (PostService.scopeOf). The policy itself stays in posts.repository.ts
// (listedBy, filteredPosts); this is the one piece of it other slices' repositories may name,
// through the slice's index.ts, so that none of them writes it again.
import type { RawBuilder, SqlBool } from 'kysely'
import { sql } from 'kysely'

import type { Executor } from '../../db/schema.js'
import { filteredPosts } from './posts.repository.js'
import type { PostScope } from './posts.service.js'

/**
 * Whether the post whose id is the outer query's column `postIdColumn` is one the scope lists: a
 * correlated EXISTS, so each database checks a found row's post by its key (an IN over every
 * listed post would read all of them first on SQLite).
 */
export function listsPost(db: Executor, scope: PostScope, postIdColumn: string): RawBuilder<SqlBool> {
  const post = filteredPosts(db, scope.reader, scope.filter).select(sql<number>`1`.as('listed')).where('posts.id', '=', sql.ref<number>(postIdColumn))
  // Kysely writes a query inside sql`` in its own parentheses.
  return sql<SqlBool>`exists ${post}`
}
