import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { isPostgres } from '../../../db/migrations/dialect.js'
import { searchableText, searchConfigurationOf } from '../../../shared/search-text.js'

// Comments in ranked search (docs/api.md "Search"): each comment's words indexed as a post's are,
// kept in the comment's own transaction by the comments service. A comment is read in its post's
// language (a conversation answers the post in its language); its author's locale where the post
// names none. An erased comment (deleted, removed, its account purged) has no entry.
//
// SQLite: an FTS5 table whose rowid is the comment's id, with the posts' tokenizer. PostgreSQL: a
// tsvector per comment in its configuration under a GIN index, and the indexed text for
// ts_headline. `npm run rebuild-search-index` writes it again.
const BATCH = 1000

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await db.schema
      .createTable('comment_search')
      .addColumn('comment_id', 'integer', (col) => col.primaryKey().references('comments.id').onDelete('cascade'))
      .addColumn('configuration', sql`regconfig`, (col) => col.notNull())
      .addColumn('body', 'text', (col) => col.notNull())
      .addColumn('document', sql`tsvector`, (col) => col.notNull())
      .execute()
    await sql`create index comment_search_document_idx on comment_search using gin (document) with (fastupdate = off)`.execute(db)
  } else {
    await sql`create virtual table comment_search using fts5(body, tokenize = 'porter unicode61 remove_diacritics 2', prefix = '2 3')`.execute(db)
    // A comment deleted for good (with its post) leaves the index with it.
    await sql`create trigger comment_search_deleted after delete on comments begin delete from comment_search where rowid = old.id; end`.execute(db)
  }
  for (let after = 0; ; ) {
    const rows = await db
      .selectFrom('comments')
      .innerJoin('posts', 'posts.id', 'comments.post_id')
      .leftJoin('users', 'users.id', 'comments.author_id')
      .select(['comments.id', 'comments.text', 'posts.language', 'users.locale'])
      .where('comments.id', '>', after)
      .orderBy('comments.id')
      .limit(BATCH)
      .execute()
    if (rows.length === 0) break
    // A batch is one statement, as the posts' index was backfilled.
    const entries = rows.filter((row) => row.text !== '').map((row) => ({ id: Number(row.id), body: searchableText(row.text as string), configuration: searchConfigurationOf((row.language ?? row.locale) as string | null) }))
    if (entries.length > 0 && isPostgres(db)) {
      await sql`insert into comment_search (comment_id, configuration, body, document)
        select id, configuration::regconfig, body, to_tsvector(configuration::regconfig, body)
        from unnest(cast(${entries.map((entry) => entry.id)} as integer[]), cast(${entries.map((entry) => entry.configuration)} as text[]), cast(${entries.map((entry) => entry.body)} as text[])) as batch(id, configuration, body)`.execute(db)
    } else if (entries.length > 0) {
      await sql`insert into comment_search (rowid, body) values ${sql.join(entries.map((entry) => sql`(${entry.id}, ${entry.body})`))}`.execute(db)
    }
    after = Number(rows.at(-1)!.id)
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) await sql`drop trigger comment_search_deleted`.execute(db)
  await db.schema.dropTable('comment_search').execute()
}
