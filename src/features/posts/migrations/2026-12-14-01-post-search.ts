import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { isPostgres } from '../../../db/migrations/dialect.js'
import { searchableText, searchConfigurationOf } from '../../../shared/search-text.js'

// Ranked search (docs/api.md "Search"): a post's language, and its title and text indexed for
// full-text search, kept in the write's own transaction by the posts repository.
//
// SQLite: an FTS5 table whose rowid is the post's id (bm25, snippets); the Porter stemmer over
// Unicode words, Latin diacritics folded, prefixes of 2 and 3 characters indexed for
// search-as-you-type. PostgreSQL: a tsvector per post in its language's configuration (title
// weighted A, text B) under a GIN index, and the indexed text for ts_headline.
//
// The index is derived data: what it holds for the posts there are is written here once, and
// `npm run search:rebuild` writes it again whenever the rules of search-text.ts change.
const BATCH = 1000

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('posts').addColumn('language', 'text').execute()
  if (isPostgres(db)) {
    await db.schema
      .createTable('post_search')
      .addColumn('post_id', 'integer', (col) => col.primaryKey().references('posts.id').onDelete('cascade'))
      .addColumn('configuration', sql`regconfig`, (col) => col.notNull())
      .addColumn('title', 'text', (col) => col.notNull())
      .addColumn('body', 'text', (col) => col.notNull())
      .addColumn('document', sql`tsvector`, (col) => col.notNull())
      .execute()
    await sql`create index post_search_document_idx on post_search using gin (document) with (fastupdate = off)`.execute(db)
  } else {
    await sql`create virtual table post_search using fts5(title, body, tokenize = 'porter unicode61 remove_diacritics 2', prefix = '2 3')`.execute(db)
    // A post deleted for good (its author's account purged) leaves the index with it.
    await sql`create trigger post_search_deleted after delete on posts begin delete from post_search where rowid = old.id; end`.execute(db)
  }
  for (let after = 0; ; ) {
    const rows = await db
      .selectFrom('posts')
      .innerJoin('users', 'users.id', 'posts.author_id')
      .select(['posts.id', 'posts.title', 'posts.text', 'users.locale'])
      .where('posts.id', '>', after)
      .orderBy('posts.id')
      .limit(BATCH)
      .execute()
    if (rows.length === 0) break
    // A batch is one statement: a statement a post took a million round trips on PostgreSQL.
    const entries = rows.map((row) => ({ id: Number(row.id), title: searchableText(row.title as string), body: searchableText(row.text as string), configuration: searchConfigurationOf(row.locale as string | null) }))
    if (isPostgres(db)) {
      await sql`insert into post_search (post_id, configuration, title, body, document)
        select id, configuration::regconfig, title, body,
          setweight(to_tsvector(configuration::regconfig, title), 'A') || setweight(to_tsvector(configuration::regconfig, body), 'B')
        from unnest(cast(${entries.map((entry) => entry.id)} as integer[]), cast(${entries.map((entry) => entry.configuration)} as text[]),
          cast(${entries.map((entry) => entry.title)} as text[]), cast(${entries.map((entry) => entry.body)} as text[])) as batch(id, configuration, title, body)`.execute(db)
    } else {
      await sql`insert into post_search (rowid, title, body) values ${sql.join(entries.map((entry) => sql`(${entry.id}, ${entry.title}, ${entry.body})`))}`.execute(db)
    }
    after = Number(rows.at(-1)!.id)
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) await sql`drop trigger post_search_deleted`.execute(db)
  await db.schema.dropTable('post_search').execute()
  await db.schema.alterTable('posts').dropColumn('language').execute()
}
