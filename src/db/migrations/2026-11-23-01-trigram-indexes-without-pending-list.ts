import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { isPostgres } from './dialect.js'

// PostgreSQL's GIN indexes put new entries in a pending list that every search reads in full
// until VACUUM (or 4 MB of entries) merges it into the index, so searches slowed as sign-ups
// came in (docs/performance.md). Without the pending list each insert updates the trigram
// indexes at once, a small cost beside the password hash a sign-up already pays. The indexes are absent where
// the server lacks pg_trgm (2026-11-21-06); SQLite's FTS5 index has no such list.
const TRIGRAM_INDEXES = ['users_name_trgm_idx', 'users_username_trgm_idx']

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return
  for (const index of TRIGRAM_INDEXES) await sql.raw(`alter index if exists ${index} set (fastupdate = off)`).execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return
  for (const index of TRIGRAM_INDEXES) await sql.raw(`alter index if exists ${index} reset (fastupdate)`).execute(db)
}
