// The only place user SQL lives. Every function takes the executor (db or a transaction) first.
import { sql } from 'kysely'
import type { Selectable } from 'kysely'
import type { Executor, UsersTable } from '../../db/schema.js'
import { isPostgres } from '../../db/dialect.js'
import { preparedQuery } from '../../db/prepared.js'
import type { PreparedQuery } from '../../db/prepared.js'
import { liveRowCount } from '../../db/row-counts.js'
import { softDeleteRow } from '../../db/soft-delete.js'
import { likeContains } from '../../shared/like.js'
import { flag, nowIso, toIsoString } from '../../shared/time.js'

/** A user as the rest of the service sees it: booleans, ISO timestamps, never the password hash. */
export interface UserRecord {
  id: number
  name: string
  username: string
  email: string
  profile_image_url: string
  tier_id: number | null
  tier_name: string | null
  age: number | null
  is_active: boolean
  is_superuser: boolean
  is_verified: boolean
  created_at: string
  updated_at: string
}

export interface UserCredentials {
  id: number
  hashed_password: string
}

export interface NewUser {
  name: string
  username: string
  email: string
  hashed_password: string
  profile_image_url: string
  age: number | null
  is_superuser?: boolean
}

export interface UserChanges {
  name?: string
  username?: string
  email?: string
  age?: number | null
  profile_image_url?: string
}

export interface UserSearch {
  name?: string
  age?: number
  isActive: boolean
  /** Matches name or username (version 2's `search`). */
  text?: string
}

/** Columns of the users table that make a UserRecord (never hashed_password). */
const USER_TABLE_COLUMNS = [
  'id',
  'name',
  'username',
  'email',
  'profile_image_url',
  'tier_id',
  'age',
  'is_active',
  'is_superuser',
  'is_verified',
  'created_at',
  'updated_at',
] as const

type UserRow = Pick<Selectable<UsersTable>, (typeof USER_TABLE_COLUMNS)[number]> & { tier_name: string | null }

function toUserRecord(row: UserRow): UserRecord {
  return {
    id: row.id,
    name: row.name,
    username: row.username,
    email: row.email,
    profile_image_url: row.profile_image_url,
    tier_id: row.tier_id,
    tier_name: row.tier_name,
    age: row.age,
    is_active: Boolean(row.is_active),
    is_superuser: Boolean(row.is_superuser),
    is_verified: Boolean(row.is_verified),
    created_at: toIsoString(row.created_at),
    updated_at: toIsoString(row.updated_at),
  }
}

/** Live (not soft-deleted) users with their tier's name. */
function liveUsers(db: Executor) {
  return db
    .selectFrom('users')
    .leftJoin('tiers', 'tiers.id', 'users.tier_id')
    .select(USER_TABLE_COLUMNS.map((column) => `users.${column}` as const))
    .select('tiers.name as tier_name')
    .where('users.is_deleted', '=', 0)
}

/** How a "contains" match is answered: from the SQLite trigram index (with or without ESCAPE), or by LIKE. */
type MatchKind = 'index' | 'index-escaped' | 'like'

/**
 * In SQLite a text of three or more characters is looked up in the users_search trigram index,
 * which FTS5 answers from its index only without an ESCAPE clause (needed only for a text
 * holding a wildcard character). In PostgreSQL the trigram indexes serve the LIKE expressions
 * themselves (migration 2026-11-21-06-user-search-index).
 */
function matchKind(db: Executor, text: string): MatchKind {
  if (isPostgres(db) || [...text].length < 3) return 'like'
  return /[\\%_]/.test(text) ? 'index-escaped' : 'index'
}

/** The column contains the LIKE pattern, case-insensitively. `pattern` may be a prepared-query argument. */
function containsPattern(kind: MatchKind, column: 'name' | 'username', pattern: unknown) {
  if (kind !== 'like') {
    const escape = kind === 'index-escaped' ? sql` escape '\\'` : sql``
    return sql<boolean>`users.id in (select rowid from users_search where ${sql.ref(column)} like ${pattern}${escape})`
  }
  return column === 'name'
    ? sql<boolean>`lower(users.name) like ${pattern} escape '\\'`
    : sql<boolean>`users.username like ${pattern} escape '\\'`
}

function contains(db: Executor, column: 'name' | 'username', text: string) {
  return containsPattern(matchKind(db, text), column, likeContains(text))
}

/** v2's `search`: name or username. */
function nameOrUsernameContains(db: Executor, text: string) {
  return sql<boolean>`(${contains(db, 'name', text)} or ${contains(db, 'username', text)})`
}

const userById = preparedQuery(1, (db, id: number) => liveUsers(db).where('users.id', '=', id))

export async function findUserById(db: Executor, id: number): Promise<UserRecord | undefined> {
  const [row] = await userById(db, id)
  return row && toUserRecord(row)
}

/** Finds a user whether soft-deleted or not: only permanent deletion needs this. */
export async function userIdExistsIncludingDeleted(db: Executor, id: number): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst()
  return row !== undefined
}

/** Soft-deleted users keep their email and username reserved, so these look at every row. */
export async function emailTaken(db: Executor, email: string, exceptId?: number): Promise<boolean> {
  let query = db
    .selectFrom('users')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
  if (exceptId !== undefined) query = query.where('id', '<>', exceptId)
  return (await query.executeTakeFirst()) !== undefined
}

export async function usernameTaken(db: Executor, username: string, exceptId?: number): Promise<boolean> {
  let query = db.selectFrom('users').select('id').where('username', '=', username)
  if (exceptId !== undefined) query = query.where('id', '<>', exceptId)
  return (await query.executeTakeFirst()) !== undefined
}

/** Credentials of a live, active account by username or (case-insensitive) email. */
export async function findCredentials(db: Executor, login: string): Promise<UserCredentials | undefined> {
  const byEmail = login.includes('@')
  return db
    .selectFrom('users')
    .select(['id', 'hashed_password'])
    .$if(byEmail, (qb) => qb.where((eb) => eb(eb.fn('lower', ['email']), '=', login.toLowerCase())))
    .$if(!byEmail, (qb) => qb.where('username', '=', login.toLowerCase()))
    .where('is_deleted', '=', 0)
    .where('is_active', '=', 1)
    .executeTakeFirst()
}

export async function insertUser(db: Executor, user: NewUser): Promise<UserRecord> {
  const now = nowIso()
  const row = await db
    .insertInto('users')
    .values({
      name: user.name,
      username: user.username,
      email: user.email,
      hashed_password: user.hashed_password,
      profile_image_url: user.profile_image_url,
      age: user.age,
      is_superuser: flag(user.is_superuser ?? false),
      created_at: now,
      updated_at: now,
    })
    .returning(USER_TABLE_COLUMNS)
    .executeTakeFirstOrThrow()
  return toUserRecord({ ...row, tier_name: null })
}

export async function updateUser(db: Executor, id: number, changes: UserChanges): Promise<UserRecord | undefined> {
  const result = await db
    .updateTable('users')
    .set({ ...changes, updated_at: nowIso() })
    .where('id', '=', id)
    .where('is_deleted', '=', 0)
    .executeTakeFirst()
  // Read back through the join, for the tier's name.
  return result.numUpdatedRows > 0n ? findUserById(db, id) : undefined
}

export async function setSuperuser(db: Executor, id: number): Promise<void> {
  await db.updateTable('users').set({ is_superuser: 1, updated_at: nowIso() }).where('id', '=', id).execute()
}

export function softDeleteUser(db: Executor, id: number): Promise<boolean> {
  return softDeleteRow(db, 'users', id)
}

/** Removes the row; foreign keys cascade to the user's tokens (and posts). Returns the avatar URL it had. */
export async function deleteUserPermanently(db: Executor, id: number): Promise<{ profile_image_url: string } | undefined> {
  return db.deleteFrom('users').where('id', '=', id).returning(['profile_image_url']).executeTakeFirst()
}

/** Live users; `search`, when given, matches the name or username. */
export async function countUsers(db: Executor, search?: string): Promise<number> {
  if (search === undefined) return liveRowCount(db, 'users')
  const { count } = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('users.is_deleted', '=', 0)
    .where(nameOrUsernameContains(db, search))
    .executeTakeFirstOrThrow()
  return Number(count)
}

// The page's ids come from the (is_deleted, id) index alone; only those rows are then read
// and joined, so a deep OFFSET skips index entries instead of joined rows.
const userPage = preparedQuery(2, (db, offset: number, limit: number) =>
  liveUsers(db)
    .where('users.id', 'in', (eb) =>
      eb.selectFrom('users').select('users.id').where('users.is_deleted', '=', 0).orderBy('users.id').limit(limit).offset(offset),
    )
    .orderBy('users.id'),
)

export async function listUsers(db: Executor, offset: number, limit: number, search?: string): Promise<UserRecord[]> {
  const rows =
    search === undefined
      ? await userPage(db, offset, limit)
      : await liveUsers(db)
          .where(nameOrUsernameContains(db, search))
          .orderBy('users.id')
          .limit(limit)
          .offset(offset)
          .execute()
  return rows.map(toUserRecord)
}

function searchedUsers(db: Executor, search: UserSearch) {
  return liveUsers(db)
    .where('users.is_active', '=', flag(search.isActive))
    .$if(search.name !== undefined, (qb) => qb.where(contains(db, 'name', search.name ?? '')))
    .$if(search.age !== undefined, (qb) => qb.where('users.age', '=', search.age ?? null))
    .$if(search.text !== undefined, (qb) => qb.where(nameOrUsernameContains(db, search.text ?? '')))
}

// v1's search by name alone is the common one: compiled once for each way of matching.
const searchByName = Object.fromEntries(
  (['index', 'index-escaped', 'like'] as const).map((kind) => [
    kind,
    preparedQuery(4, (db, isActive: 0 | 1, pattern: string, offset: number, limit: number) =>
      liveUsers(db)
        .where('users.is_active', '=', isActive)
        .where(containsPattern(kind, 'name', pattern))
        .orderBy('users.id')
        .limit(limit)
        .offset(offset),
    ),
  ]),
) as Record<MatchKind, PreparedQuery<[0 | 1, string, number, number], UserRow>>

export async function searchUsers(db: Executor, search: UserSearch, offset: number, limit: number): Promise<UserRecord[]> {
  const byNameOnly = search.name !== undefined && search.age === undefined && search.text === undefined
  const rows = byNameOnly
    ? await searchByName[matchKind(db, search.name ?? '')](db, flag(search.isActive), likeContains(search.name ?? ''), offset, limit)
    : await searchedUsers(db, search).orderBy('users.id').limit(limit).offset(offset).execute()
  return rows.map(toUserRecord)
}

export async function countSearchUsers(db: Executor, search: UserSearch): Promise<number> {
  const { count } = await searchedUsers(db, search)
    .clearSelect()
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow()
  return Number(count)
}

export async function findUserByEmailOrUsername(
  db: Executor,
  email: string,
  username: string,
): Promise<UserRecord | undefined> {
  const row = await liveUsers(db)
    .where((eb) =>
      eb.or([eb(eb.fn('lower', ['users.email']), '=', email.toLowerCase()), eb('users.username', '=', username)]),
    )
    .orderBy('users.id')
    .executeTakeFirst()
  return row && toUserRecord(row)
}

export async function setUserTier(db: Executor, id: number, tierId: number | null): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ tier_id: tierId, updated_at: nowIso() })
    .where('id', '=', id)
    .where('is_deleted', '=', 0)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}
