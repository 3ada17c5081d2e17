import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { isPostgres } from '../../../db/migrations/dialect.js'
import { rewriteSqliteTable } from '../../../db/sqlite-schema-writes.js'

// A post's text format (docs/api.md, "Markdown"): `plain`, as every post so far, or `markdown`,
// whose sanitized HTML is rendered once when its text is written and kept in `html` (null for a
// plain post), so that reads never render. Version 2's texts are up to 100,000 characters: the
// database's own check of a text's length is loosened to match (every stored text passes it).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('posts').addColumn('format', 'varchar(8)', (col) => col.notNull().defaultTo('plain')).execute()
  await db.schema.alterTable('posts').addColumn('html', 'text').execute()
  await textCheck(db, 10_000, 100_000)
}

export async function down(db: Kysely<any>): Promise<void> {
  // Tightening the check is only sound while no text is longer than it allows: say so and stop.
  const longer = await db.selectFrom('posts').select((eb) => eb.fn.countAll().as('count')).where(sql<boolean>`length(text) > 10000`).executeTakeFirstOrThrow()
  if (Number(longer.count) > 0) throw new Error(`${longer.count} posts have texts longer than 10,000 characters, which the schema before this migration refuses`)
  await textCheck(db, 100_000, 10_000)
  await db.schema.alterTable('posts').dropColumn('html').execute()
  await db.schema.alterTable('posts').dropColumn('format').execute()
}

async function textCheck(db: Kysely<any>, from: number, to: number): Promise<void> {
  if (!isPostgres(db)) return rewriteSqliteTable(db, 'posts', `length(text) <= ${from}`, `length(text) <= ${to}`)
  // Not valid, then validated: the table is scanned without holding writers back.
  await sql.raw(`alter table posts drop constraint posts_text_check, add constraint posts_text_check check (length(text) <= ${to}) not valid`).execute(db)
  await sql`alter table posts validate constraint posts_text_check`.execute(db)
}
