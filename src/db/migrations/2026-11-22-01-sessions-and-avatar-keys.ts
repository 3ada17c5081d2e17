import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { now, timestampType } from './dialect.js'

// Login sessions as rows: every access and refresh token names its session (`sid`), and
// revoking the session ends all of them at once (logout, refresh-token reuse). Existing refresh
// families become sessions, so tokens issued before this migration keep working.
//
// users.avatar_key: the stored avatar a user owns, which only an upload sets. A client-written
// profile_image_url is a link and never names a file the service deletes.
export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addColumn('last_used_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addColumn('expires_at', ts, (col) => col.notNull())
    .addColumn('revoked_at', ts)
    .addColumn('user_agent', 'varchar(512)')
    .addColumn('ip', 'varchar(64)')
    .execute()
  await db.schema.createIndex('sessions_user_id_idx').on('sessions').column('user_id').execute()
  await db.schema.createIndex('sessions_expires_at_idx').on('sessions').column('expires_at').execute()

  await sql`
    insert into sessions (id, user_id, created_at, last_used_at, expires_at, revoked_at)
    select family_id, min(user_id), min(created_at), max(created_at), max(expires_at), max(revoked_at)
    from refresh_tokens group by family_id
  `.execute(db)

  await db.schema.alterTable('users').addColumn('avatar_key', 'varchar(64)').execute()
  // Only an avatar URL that exactly one user holds can have been that user's own upload.
  await sql`
    update users set avatar_key = substr(profile_image_url, 16)
    where profile_image_url like '/media/avatars/%'
      and profile_image_url <> '/media/avatars/default.svg'
      and (select count(*) from users other where other.profile_image_url = users.profile_image_url) = 1
  `.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('avatar_key').execute()
  await db.schema.dropTable('sessions').execute()
}
