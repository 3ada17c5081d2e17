import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { isPostgres } from '../../../db/migrations/dialect.js'

// A post's custom fields (docs/api.md "Custom fields"): one JSON object, `{}` for every post so
// far. jsonb on PostgreSQL, so a filter can reach a field; JSON text on SQLite, whose JSON
// functions read text. A constant default adds the column without rewriting the table.
export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await db.schema.alterTable('posts').addColumn('fields', 'jsonb', (col) => col.notNull().defaultTo(sql`'{}'::jsonb`)).execute()
  else await db.schema.alterTable('posts').addColumn('fields', 'text', (col) => col.notNull().defaultTo('{}')).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('posts').dropColumn('fields').execute()
}
