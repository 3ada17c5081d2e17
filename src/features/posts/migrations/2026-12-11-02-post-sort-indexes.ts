import type { Kysely } from 'kysely'

import { isPostgres } from '../../../db/migrations/dialect.js'

// Indexes in the order a sorted post list answers (docs/api.md "Sort", docs/performance.md): a
// sorted page then walks an index in its order and stops after the page, as newest-first does,
// instead of sorting every post the reader may list. Without them one sorted page over 1,000,000
// posts held SQLite's only connection for seconds, and every other request waited behind it.
//
// The kept counts are indexed on SQLite only. On PostgreSQL an index on a column a trigger updates
// at every reaction and comment would make each of those updates non-HOT: a new version of every
// index entry of the post, its text's trigram index included. There a count-sorted page is a
// parallel scan with a top-N sort that holds one pooled connection, not the server.
const BOTH = [
  ['posts_title_sort_idx', 'title'],
  ['posts_updated_at_sort_idx', 'updated_at'],
  ['posts_created_at_sort_idx', 'created_at'],
] as const
const SQLITE_ONLY = [
  ['posts_reaction_count_sort_idx', 'reaction_count'],
  ['posts_comment_count_sort_idx', 'comment_count'],
] as const

const indexesOf = (db: Kysely<any>) => (isPostgres(db) ? BOTH : [...BOTH, ...SQLITE_ONLY])

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, column] of indexesOf(db)) await db.schema.createIndex(name).on('posts').columns([column, 'id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of indexesOf(db)) await db.schema.dropIndex(name).execute()
}
