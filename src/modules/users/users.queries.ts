// User query builders: the SQL of the users module, built but not run. users.repository.ts runs
// them; users.prepared.ts compiles the hot ones once.
import { sql } from 'kysely'
import type { Selectable } from 'kysely'
import { isPostgres } from '../../db/dialect.js'
import type { Executor, UsersTable } from '../../db/schema.js'
import { likeContains } from '../../shared/like-pattern.js'

/** Columns of the users table that make a user (never hashed_password). */
export const USER_TABLE_COLUMNS = [
  'id',
  'name',
  'username',
  'email',
  'profile_image_url',
  'avatar_key',
  'tier_id',
  'age',
  'is_active',
  'is_superuser',
  'is_verified',
  'created_at',
  'updated_at',
] as const

/** A users row with its tier's name, as every user read returns it. */
export type UserRow = Pick<Selectable<UsersTable>, (typeof USER_TABLE_COLUMNS)[number]> & { tier_name: string | null }

/** Live (not soft-deleted) users with their tier's name. */
export function liveUsers(db: Executor) {
  return db
    .selectFrom('users')
    .leftJoin('tiers', 'tiers.id', 'users.tier_id')
    .select(USER_TABLE_COLUMNS.map((column) => `users.${column}` as const))
    .select('tiers.name as tier_name')
    .where('users.is_deleted', '=', 0)
}

/** How a "contains" match is answered: from the SQLite trigram index (with or without ESCAPE), or by LIKE. */
export type MatchKind = 'index' | 'index-escaped' | 'like'
export const MATCH_KINDS: readonly MatchKind[] = ['index', 'index-escaped', 'like']

/**
 * In SQLite a text of three or more characters is looked up in the users_search trigram index,
 * which FTS5 answers from its index only without an ESCAPE clause (needed only for a text
 * holding a wildcard character). In PostgreSQL the trigram indexes serve the LIKE expressions
 * themselves (migration 2026-11-21-06-user-search-index).
 */
export function matchKind(db: Executor, text: string): MatchKind {
  if (isPostgres(db) || [...text].length < 3) return 'like'
  return /[\\%_]/.test(text) ? 'index-escaped' : 'index'
}

/** The column contains the LIKE pattern, case-insensitively. `pattern` may be a prepared-query argument. */
export function containsPattern(kind: MatchKind, column: 'name' | 'username', pattern: unknown) {
  if (kind !== 'like') {
    const escape = kind === 'index-escaped' ? sql` escape '\\'` : sql``
    return sql<boolean>`users.id in (select rowid from users_search where ${sql.ref(column)} like ${pattern}${escape})`
  }
  return column === 'name'
    ? sql<boolean>`lower(users.name) like ${pattern} escape '\\'`
    : sql<boolean>`users.username like ${pattern} escape '\\'`
}

export function contains(db: Executor, column: 'name' | 'username', text: string) {
  return containsPattern(matchKind(db, text), column, likeContains(text))
}

/** Name or username contains the text. */
export function nameOrUsernameContains(db: Executor, text: string) {
  return sql<boolean>`(${contains(db, 'name', text)} or ${contains(db, 'username', text)})`
}

export function userByIdQuery(db: Executor, id: number) {
  return liveUsers(db).where('users.id', '=', id)
}

/**
 * The caller of a request: a live user whose login session is live too. Folding the session
 * into the query that loads the user checks revocation without another round trip.
 */
export function userInLiveSessionQuery(db: Executor, id: number, sessionId: string) {
  return liveUsers(db)
    .innerJoin('sessions', 'sessions.user_id', 'users.id')
    .where('users.id', '=', id)
    .where('sessions.id', '=', sessionId)
    .where('sessions.revoked_at', 'is', null)
}

// The page's ids come from the (is_deleted, id) index alone; only those rows are then read
// and joined, so a deep OFFSET skips index entries instead of joined rows.
export function userPageQuery(db: Executor, offset: number, limit: number) {
  return liveUsers(db)
    .where('users.id', 'in', (eb) =>
      eb.selectFrom('users').select('users.id').where('users.is_deleted', '=', 0).orderBy('users.id').limit(limit).offset(offset),
    )
    .orderBy('users.id')
}

/** Keyset paging: the live users after `after`, in id order, read from the (is_deleted, id) index at any depth. */
export function userPageAfterQuery(db: Executor, after: number, limit: number) {
  return liveUsers(db).where('users.id', '>', after).orderBy('users.id').limit(limit)
}

/** Search by name alone, matched the given way; `pattern` is a LIKE pattern (likeContains). */
export function searchByNameQuery(kind: MatchKind) {
  return (db: Executor, isActive: 0 | 1, pattern: string, offset: number, limit: number) =>
    liveUsers(db)
      .where('users.is_active', '=', isActive)
      .where(containsPattern(kind, 'name', pattern))
      .orderBy('users.id')
      .limit(limit)
      .offset(offset)
}
