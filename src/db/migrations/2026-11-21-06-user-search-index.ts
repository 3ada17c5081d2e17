import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { isPostgres } from './dialect.js'

// Substring search on user names (and usernames, for v2's `search`) without scanning the table.
// PostgreSQL: trigram GIN indexes (pg_trgm, shipped with PostgreSQL's contrib; skipped when the
// server lacks it, and search then scans). SQLite: an FTS5 table with the trigram tokenizer,
// mirrored from users by triggers; the repository asks it with LIKE, which FTS5 answers from
// its index for patterns of three or more characters.
export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    const { rows } = await sql<{ available: boolean }>`
      select exists (select 1 from pg_available_extensions where name = 'pg_trgm') as available`.execute(db)
    if (!rows[0]?.available) return
    await sql`create extension if not exists pg_trgm`.execute(db)
    await sql`create index users_name_trgm_idx on users using gin (lower(name) gin_trgm_ops)`.execute(db)
    await sql`create index users_username_trgm_idx on users using gin (username gin_trgm_ops)`.execute(db)
    return
  }
  await sql`create virtual table users_search using fts5(
    name, username, content = 'users', content_rowid = 'id', tokenize = 'trigram')`.execute(db)
  await sql`insert into users_search (users_search) values ('rebuild')`.execute(db)
  await sql`create trigger users_search_insert after insert on users begin
    insert into users_search (rowid, name, username) values (new.id, new.name, new.username);
  end`.execute(db)
  await sql`create trigger users_search_delete after delete on users begin
    insert into users_search (users_search, rowid, name, username) values ('delete', old.id, old.name, old.username);
  end`.execute(db)
  await sql`create trigger users_search_update after update of name, username on users begin
    insert into users_search (users_search, rowid, name, username) values ('delete', old.id, old.name, old.username);
    insert into users_search (rowid, name, username) values (new.id, new.name, new.username);
  end`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop index if exists users_name_trgm_idx`.execute(db)
    await sql`drop index if exists users_username_trgm_idx`.execute(db)
    return
  }
  for (const trigger of ['insert', 'delete', 'update']) await sql.raw(`drop trigger if exists users_search_${trigger}`).execute(db)
  await sql`drop table if exists users_search`.execute(db)
}
