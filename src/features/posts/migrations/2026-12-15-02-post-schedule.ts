import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { timestampType } from '../../../db/migrations/dialect.js'

// Scheduled publishing (docs/api.md "Scheduled publishing"): a post with the status `scheduled`
// holds when it goes out; the publishing job walks the scheduled posts by that time alone.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('posts').addColumn('publish_at', timestampType(db)).execute()
  await db.schema.createIndex('posts_publish_at_idx').on('posts').column('publish_at').where(sql.ref('status'), '=', 'scheduled').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('posts_publish_at_idx').execute()
  await db.schema.alterTable('posts').dropColumn('publish_at').execute()
}
