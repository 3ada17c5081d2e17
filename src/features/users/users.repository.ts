// The users feature's SQL, the only place it lives (user-directory.repository.ts reuses its
// builders for the admin directory). Every function takes the executor (db or a transaction)
// first and returns rows of the users table (UserRow); the service turns them into Users.
import type { Compilable } from 'kysely'
import { sql } from 'kysely'

import { isPostgres } from '../../db/dialect.js'
import { preparedQuery } from '../../db/fast-path/prepared.js'
import { filterSql } from '../../db/filter-sql.js'
import { flag } from '../../db/flag.js'
import { readOffLoop } from '../../db/read-worker.js'
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import { liveRowCount } from '../../db/row-counts.js'
import type { Executor } from '../../db/schema.js'
import { softDeleteRow } from '../../db/soft-delete.js'
import { likeContains } from '../../shared/like-pattern.js'
import type { RowWindow } from '../../shared/paging.js'
import { nowIso } from '../../shared/timestamps.js'
import type { FieldValues } from '../content-fields/index.js'
import { storedFieldsOf } from '../content-fields/index.js'
import type { BanRow } from './bans.js'
import type { ServiceAccountKind, UserListFilter, UserSearchFilter } from './user.js'
import type { UserRow } from './users.table.js'
import { USER_TABLE_COLUMNS } from './users.table.js'

// Query builders: built here, run below (the hot ones through their prepared twins).
/** Live (not soft-deleted) users with their tier's name. */
export function liveUsers(db: Executor) {
  return db
    .selectFrom('users')
    .leftJoin('tiers', 'tiers.id', 'users.tier_id')
    .select(USER_TABLE_COLUMNS.map((column) => `users.${column}` as const))
    .select('tiers.name as tier_name')
    .where('users.is_deleted', '=', 0)
}

/**
 * How a "contains" match is answered: from the SQLite trigram index, by LIKE over it (`index`)
 * or, for a text holding a LIKE wildcard (`%`, `_`, `\`), by an FTS5 phrase (`index-phrase`),
 * which the index answers too where LIKE ... ESCAPE would scan every row; or by LIKE (`like`).
 */
export type MatchKind = 'index' | 'index-phrase' | 'like'
export const MATCH_KINDS: readonly MatchKind[] = ['index', 'index-phrase', 'like']

/**
 * In SQLite a text of three or more characters is looked up in the users_search trigram index;
 * shorter ones cannot be (a trigram is three characters). In PostgreSQL the trigram indexes
 * serve the LIKE expressions themselves (migration 2026-11-21-06-user-search-index).
 */
export function matchKind(db: Executor, text: string): MatchKind {
  if (isPostgres(db) || [...text].length < 3) return 'like'
  return /[\\%_]/.test(text) ? 'index-phrase' : 'index'
}

/** An FTS5 phrase matching `text` as a substring: inside double quotes only a double quote is special. */
const ftsPhrase = (text: string) => `"${text.toLowerCase().replaceAll('"', '""')}"`

/** What a match of `kind` binds for `text`: the FTS5 phrase, or the LIKE pattern. */
export const matchArgument = (kind: MatchKind, text: string) => (kind === 'index-phrase' ? ftsPhrase(text) : likeContains(text))

/** The column contains the text, case-insensitively. `argument` (matchArgument) may be a prepared-query argument. */
export function containsPattern(kind: MatchKind, column: 'name' | 'username', argument: unknown) {
  if (kind === 'index-phrase') return sql<boolean>`users.id in (select rowid from users_search where ${sql.ref(column)} match ${argument})`
  if (kind === 'index') return sql<boolean>`users.id in (select rowid from users_search where ${sql.ref(column)} like ${argument})`
  return column === 'name'
    ? sql<boolean>`lower(users.name) like ${argument} escape '\\'`
    : sql<boolean>`users.username like ${argument} escape '\\'`
}

export function contains(db: Executor, column: 'name' | 'username', text: string) {
  const kind = matchKind(db, text)
  return containsPattern(kind, column, matchArgument(kind, text))
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

/**
 * The same, in one statement with the check that the access token `jti` was not revoked, for
 * revocations kept in the database: a signed-in request costs one round trip.
 */
export function callerQuery(db: Executor, id: number, sessionId: string, jti: string) {
  return userInLiveSessionQuery(db, id, sessionId).where((eb) => eb.not(eb.exists(eb.selectFrom('revoked_tokens').select('revoked_tokens.jti').where('revoked_tokens.jti', '=', jti))))
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

/** Search by name alone, matched the given way; `pattern` is what matchArgument gives for that way. */
export function searchByNameQuery(kind: MatchKind) {
  return (db: Executor, isActive: 0 | 1, pattern: string, offset: number, limit: number) =>
    liveUsers(db)
      .where('users.is_active', '=', isActive)
      .where(containsPattern(kind, 'name', pattern))
      .orderBy('users.id')
      .limit(limit)
      .offset(offset)
}

// The hot queries, compiled once (src/db/fast-path). Each is its plain twin above;
// test/db/prepared.test.ts checks that both return the same rows.
export const preparedUserById = preparedQuery(1, userByIdQuery, { singleRow: true })
export const preparedUserInLiveSession = preparedQuery(2, userInLiveSessionQuery, { singleRow: true })
export const preparedCaller = preparedQuery(3, callerQuery, { singleRow: true })
export const preparedUserPage = preparedQuery(2, userPageQuery)
export const preparedUserPageAfter = preparedQuery(2, userPageAfterQuery)

/** v1's search by name alone is the common one: compiled once for each way of matching. */
export const preparedSearchByName = {
  index: preparedQuery(4, searchByNameQuery('index')),
  'index-phrase': preparedQuery(4, searchByNameQuery('index-phrase')),
  like: preparedQuery(4, searchByNameQuery('like')),
}

export type { UserRow }

export interface CredentialsRow {
  id: number
  hashed_password: string
  /** Set while the account waits out its deletion's grace period. */
  deletion_due_at: Date | string | null
}

export interface NewUserRow {
  name: string
  username: string
  email: string
  hashed_password: string
  profile_image_url: string
  age: number | null
  is_superuser: boolean
  /** Its custom fields as JSON text; none when left out. */
  fields?: string
}

export interface UserRowChanges {
  /** Its custom fields as JSON text. */
  fields?: string
  name?: string
  username?: string
  email?: string
  age?: number | null
  profile_image_url?: string
  avatar_key?: string | null
  is_verified?: 0 | 1
}

export async function findUserById(db: Executor, id: number): Promise<UserRow | undefined> {
  const [row] = await preparedUserById(db, id)
  return row
}

/** The live users of `ids`, in one statement (the authors of a page of posts). */
export function findUsersByIds(db: Executor, ids: readonly number[]): Promise<UserRow[]> {
  return db
    .selectFrom('users')
    .leftJoin('tiers', 'tiers.id', 'users.tier_id')
    .select(USER_TABLE_COLUMNS.map((column) => `users.${column}` as const))
    .select('tiers.name as tier_name')
    .where('users.id', 'in', [...ids])
    .where('users.is_deleted', '=', 0)
    .execute()
}

/**
 * A live user's custom fields as stored, their row held until the unit ends on PostgreSQL (SQLite's
 * unit holds the write lock): an edit merges into what no other write changes meanwhile.
 */
export async function findFieldsForChange(db: Executor, id: number): Promise<FieldValues | undefined> {
  const row = await db.selectFrom('users').select('fields').where('id', '=', id).where('is_deleted', '=', 0).$if(isPostgres(db), (qb) => qb.forUpdate()).executeTakeFirst()
  return row && storedFieldsOf(row.fields)
}

/** A user whether soft-deleted or not (the last shape of one being deleted or removed, for its change event). */
export function findAnyUserById(db: Executor, id: number): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .leftJoin('tiers', 'tiers.id', 'users.tier_id')
    .select(USER_TABLE_COLUMNS.map((column) => `users.${column}` as const))
    .select('tiers.name as tier_name')
    .where('users.id', '=', id)
    .executeTakeFirst()
}

export async function findUserInLiveSession(db: Executor, id: number, sessionId: string): Promise<UserRow | undefined> {
  const [row] = await preparedUserInLiveSession(db, id, sessionId)
  return row
}

/** A live user in a live session whose access token `jti` is not revoked (revocations in the database). */
export async function findCaller(db: Executor, id: number, sessionId: string, jti: string): Promise<UserRow | undefined> {
  const [row] = await preparedCaller(db, id, sessionId, jti)
  return row
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

/**
 * Credentials of a live, active account by username or (case-insensitive) email, or of one whose
 * owner asked to delete it and which is still in its grace period (`deletion_due_at` set): its
 * password is checked like any other, so the answer takes the same time either way.
 */
export async function findCredentials(db: Executor, login: string): Promise<CredentialsRow | undefined> {
  const byEmail = login.includes('@')
  return db
    .selectFrom('users')
    .select(['id', 'hashed_password', 'deletion_due_at'])
    .$if(byEmail, (qb) => qb.where((eb) => eb(eb.fn('lower', ['email']), '=', login.toLowerCase())))
    .$if(!byEmail, (qb) => qb.where('username', '=', login.toLowerCase()))
    .where((eb) => eb.or([eb('is_deleted', '=', 0), eb('deletion_due_at', 'is not', null)]))
    .where('is_active', '=', 1)
    .where('kind', '=', 'person')
    .executeTakeFirst()
}

/** The live account a login name (username or email) names, active or not. */
export async function findLoginAccount(db: Executor, login: string): Promise<{ id: number; created_at: Date | string } | undefined> {
  const byEmail = login.includes('@')
  return db
    .selectFrom('users')
    .select(['id', 'created_at'])
    .$if(byEmail, (qb) => qb.where((eb) => eb(eb.fn('lower', ['email']), '=', login.toLowerCase())))
    .$if(!byEmail, (qb) => qb.where('username', '=', login.toLowerCase()))
    .where('is_deleted', '=', 0)
    .executeTakeFirst()
}

export async function findHashedPassword(db: Executor, id: number): Promise<string | undefined> {
  const row = await db.selectFrom('users').select('hashed_password').where('id', '=', id).where('is_deleted', '=', 0).executeTakeFirst()
  return row?.hashed_password
}

/** A live, active user by (case-insensitive) email. */
export function findActiveUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return liveUsers(db)
    .where((eb) => eb(eb.fn('lower', ['users.email']), '=', email.toLowerCase()))
    .where('users.is_active', '=', 1)
    .where('users.kind', '=', 'person')
    .executeTakeFirst()
}

export async function setHashedPassword(db: Executor, id: number, hashedPassword: string): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ hashed_password: hashedPassword, updated_at: nowIso() })
    .where('id', '=', id)
    .where('is_deleted', '=', 0)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Whether the account ever proved it reads its mailbox (users.email_verified_at); undefined for no live user. */
export async function findMailboxProven(db: Executor, id: number): Promise<boolean | undefined> {
  const row = await db.selectFrom('users').select('email_verified_at').where('id', '=', id).where('is_deleted', '=', 0).executeTakeFirst()
  return row && row.email_verified_at !== null
}

/** Marks the user verified while `email` is still their address (and when the mailbox was first proven); false otherwise. */
export async function markEmailVerified(db: Executor, id: number, email: string): Promise<boolean> {
  const now = nowIso()
  const result = await db
    .updateTable('users')
    .set({ is_verified: 1, updated_at: now, email_verified_at: sql<string>`coalesce(email_verified_at, ${now})` })
    .where('id', '=', id)
    .where('is_deleted', '=', 0)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export async function insertUser(db: Executor, user: NewUserRow): Promise<UserRow> {
  const now = nowIso()
  const row = await db
    .insertInto('users')
    .values({ ...user, is_superuser: flag(user.is_superuser), created_at: now, updated_at: now })
    .returning(USER_TABLE_COLUMNS)
    .executeTakeFirstOrThrow()
  return { ...row, tier_name: null }
}

export async function updateUser(db: Executor, id: number, changes: UserRowChanges): Promise<UserRow | undefined> {
  const result = await db
    .updateTable('users')
    .set({ ...changes, updated_at: nowIso() })
    .where('id', '=', id)
    .where('is_deleted', '=', 0)
    .executeTakeFirst()
  // Read back through the join, for the tier's name.
  return result.numUpdatedRows > 0n ? findUserById(db, id) : undefined
}

/** Bans a live user (a new ban replaces theirs); their row as it is now, or undefined when there is no live user. */
export async function setBan(db: Executor, id: number, ban: BanRow): Promise<UserRow | undefined> {
  const now = nowIso()
  const changes = { banned_until: ban.until, ban_reason: ban.reason, ban_message: ban.message, banned_by: ban.by, banned_at: now, updated_at: now }
  const result = await db.updateTable('users').set(changes).where('id', '=', id).where('is_deleted', '=', 0).executeTakeFirst()
  return result.numUpdatedRows > 0n ? findUserById(db, id) : undefined
}

const NO_BAN = { banned_until: null, ban_reason: null, ban_message: null, banned_by: null, banned_at: null }

/** Lifts a user's ban, in force or not; their row when there was one to lift. */
export async function clearBan(db: Executor, id: number): Promise<UserRow | undefined> {
  const result = await db.updateTable('users').set({ ...NO_BAN, updated_at: nowIso() }).where('id', '=', id).where('banned_until', 'is not', null).executeTakeFirst()
  return result.numUpdatedRows > 0n ? findAnyUserById(db, id) : undefined
}

/** Ids of up to `limit` users whose ban has run out by `now` (and is still on their row). */
export async function findExpiredBans(db: Executor, now: string, limit: number): Promise<number[]> {
  const rows = await db.selectFrom('users').select('id').where('banned_until', '<=', now).orderBy('banned_until').limit(limit).execute()
  return rows.map((row) => row.id)
}

/** Clears a ban that ran out by `now`, once: undefined when another process did first, or it was renewed. */
export async function clearExpiredBan(db: Executor, id: number, now: string): Promise<UserRow | undefined> {
  const result = await db.updateTable('users').set({ ...NO_BAN, updated_at: nowIso() }).where('id', '=', id).where('banned_until', '<=', now).executeTakeFirst()
  return result.numUpdatedRows > 0n ? findAnyUserById(db, id) : undefined
}

/** The message a banned user is shown, as the superuser wrote it. */
export async function findBanMessage(db: Executor, id: number): Promise<string | null> {
  const row = await db.selectFrom('users').select('ban_message').where('id', '=', id).executeTakeFirst()
  return row?.ban_message ?? null
}

/** Soft-deletes a live user until `dueAt`, when they are removed for good; false when there is no live user. */
export async function scheduleDeletion(db: Executor, id: number, dueAt: string): Promise<boolean> {
  if (!(await softDeleteUser(db, id))) return false
  await db.updateTable('users').set({ deletion_due_at: dueAt }).where('id', '=', id).execute()
  return true
}

/** Undoes a scheduled deletion that is still pending; false when there is none. */
export async function cancelScheduledDeletion(db: Executor, id: number): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ is_deleted: 0, deleted_at: null, deletion_due_at: null, updated_at: nowIso() })
    .where('id', '=', id)
    .where('deletion_due_at', 'is not', null)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Ids of up to `limit` users whose grace period ended by `now`. */
export async function findDueDeletions(db: Executor, now: string, limit: number, skip: readonly number[]): Promise<number[]> {
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('deletion_due_at', '<=', now)
    .$if(skip.length > 0, (query) => query.where('id', 'not in', skip))
    .orderBy('deletion_due_at')
    .limit(limit)
    .execute()
  return rows.map((row) => row.id)
}

/** When a user's scheduled deletion is due, and when it was asked for; undefined when none is pending. */
export async function findScheduledDeletion(db: Executor, id: number): Promise<{ due_at: Date | string; deleted_at: Date | string | null } | undefined> {
  const row = await db.selectFrom('users').select(['deletion_due_at', 'deleted_at']).where('id', '=', id).where('deletion_due_at', 'is not', null).executeTakeFirst()
  return row?.deletion_due_at ? { due_at: row.deletion_due_at, deleted_at: row.deleted_at } : undefined
}

/** The id of the account the service owns of this kind (`deleted_author`), by its kind: never by an address or a name. */
export async function findServiceAccount(db: Executor, kind: ServiceAccountKind): Promise<number | undefined> {
  return (await db.selectFrom('users').select('id').where('kind', '=', kind).executeTakeFirst())?.id
}

/**
 * Adds the account the service owns of this kind: inactive and without a password, so nothing
 * signs in to it. Of two processes adding it at once, one does (a unique index on the kind).
 */
export async function insertServiceAccount(db: Executor, kind: ServiceAccountKind, user: NewUserRow): Promise<number> {
  const row = await insertUser(db, user)
  await db.updateTable('users').set({ is_active: 0, kind }).where('id', '=', row.id).execute()
  return row.id
}

export async function setSuperuser(db: Executor, id: number): Promise<void> {
  await db.updateTable('users').set({ is_superuser: 1, updated_at: nowIso() }).where('id', '=', id).execute()
}

export function softDeleteUser(db: Executor, id: number): Promise<boolean> {
  return softDeleteRow(db, 'users', id)
}

/** Whether a row with this id exists and is soft-deleted, and since when; undefined when there is no row. */
export async function findDeletion(db: Executor, id: number): Promise<{ deleted: boolean; deletedAt: string | null } | undefined> {
  const row = await db.selectFrom('users').select(['is_deleted', 'deleted_at']).where('id', '=', id).executeTakeFirst()
  if (!row) return undefined
  const deletedAt = row.deleted_at === null ? null : row.deleted_at instanceof Date ? row.deleted_at.toISOString() : String(row.deleted_at)
  return { deleted: Boolean(row.is_deleted), deletedAt }
}

/** Makes a soft-deleted user live again; false when there was no soft-deleted row. */
export async function restoreUser(db: Executor, id: number): Promise<boolean> {
  const result = await db
    .updateTable('users')
    // A superuser's restore also takes back a deletion its owner asked for.
    .set({ is_deleted: 0, deleted_at: null, deletion_due_at: null, updated_at: nowIso() })
    .where('id', '=', id)
    .where('is_deleted', '=', 1)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Removes the row (soft-deleted or not); foreign keys cascade to the user's tokens and posts. Returns the avatar it owned. */
export async function deleteUserPermanently(db: Executor, id: number): Promise<{ avatar_key: string | null } | undefined> {
  return db.deleteFrom('users').where('id', '=', id).returning(['avatar_key']).executeTakeFirst()
}

/** The filter's condition: a private field compared only on the caller's own row. */
const filterOf = (db: Executor, filter: UserListFilter) =>
  filterSql(db, filter.expression, { table: 'users', privateGuard: filter.ownerOfPrivate === null ? undefined : sql<boolean>`users.id = ${filter.ownerOfPrivate}` })

/** Live users (an exact count kept by triggers), or those matching `search` and `filter`, counted no further than `atMost`. */
export async function countUsers(db: Executor, search: string | undefined, atMost: number, filter?: UserListFilter): Promise<number> {
  if (search === undefined && filter === undefined) return liveRowCount(db, 'users')
  const matches = db
    .selectFrom('users')
    .select('users.id')
    .where('users.is_deleted', '=', 0)
    .$if(search !== undefined, (qb) => qb.where(nameOrUsernameContains(db, search ?? '')))
    .$if(filter !== undefined, (qb) => qb.where(filterOf(db, filter!)))
    .limit(atMost)
  return countOf(db, db.selectFrom(matches.as('matches')).select((eb) => eb.fn.countAll<number | string>().as('count')), scansTable(db, [search]))
}

/**
 * Whether matching these texts reads the whole table on SQLite (a text too short for the trigram
 * index): such a read runs off the event loop (src/db/read-worker.ts), so it holds up no other
 * request. PostgreSQL's trigram indexes serve every LIKE, and its queries never block the loop.
 */
function scansTable(db: Executor, texts: readonly (string | undefined)[]): boolean {
  return !isPostgres(db) && texts.some((text) => text !== undefined && matchKind(db, text) === 'like')
}

const rowsOf = <R>(db: Executor, query: Compilable<R> & { execute(): Promise<R[]> }, scans: boolean): Promise<R[]> =>
  scans ? readOffLoop(db, query) : query.execute()

async function countOf(db: Executor, query: Compilable<{ count: number | string }> & { execute(): Promise<{ count: number | string }[]> }, scans: boolean): Promise<number> {
  const [row] = await rowsOf(db, query, scans)
  return Number(row?.count ?? 0)
}

/** In id order; a window with `after` starts after that id (keyset paging), else at its offset. */
export async function listUsers(db: Executor, { offset, limit, after }: RowWindow, search?: string, filter?: UserListFilter): Promise<UserRow[]> {
  if (search === undefined && filter === undefined) return after === undefined ? preparedUserPage(db, offset, limit) : preparedUserPageAfter(db, after, limit)
  const query = liveUsers(db)
    .$if(search !== undefined, (qb) => qb.where(nameOrUsernameContains(db, search ?? '')))
    .$if(filter !== undefined, (qb) => qb.where(filterOf(db, filter!)))
    .$if(after !== undefined, (qb) => qb.where('users.id', '>', after ?? 0))
    .orderBy('users.id')
    .limit(limit)
    .offset(offset)
  return rowsOf(db, query, scansTable(db, [search]))
}

function searchedUsers(db: Executor, filter: UserSearchFilter) {
  return liveUsers(db)
    .where('users.is_active', '=', flag(filter.isActive))
    .$if(filter.name !== undefined, (qb) => qb.where(contains(db, 'name', filter.name ?? '')))
    .$if(filter.age !== undefined, (qb) => qb.where('users.age', '=', filter.age ?? null))
    .$if(filter.text !== undefined, (qb) => qb.where(nameOrUsernameContains(db, filter.text ?? '')))
    .$if(filter.filter !== undefined, (qb) => qb.where(filterOf(db, filter.filter!)))
}

export async function searchUsers(db: Executor, filter: UserSearchFilter, { offset, limit, after }: RowWindow): Promise<UserRow[]> {
  const { name } = filter
  const scans = scansTable(db, [filter.name, filter.text])
  if (name !== undefined && filter.age === undefined && filter.text === undefined && filter.filter === undefined && after === undefined && !scans) {
    const kind = matchKind(db, name)
    return preparedSearchByName[kind](db, flag(filter.isActive), matchArgument(kind, name), offset, limit)
  }
  const query = searchedUsers(db, filter)
    .$if(after !== undefined, (qb) => qb.where('users.id', '>', after ?? 0))
    .orderBy('users.id')
    .limit(limit)
    .offset(offset)
  return rowsOf(db, query, scans)
}

/** How many users match, counting no further than `atMost`: a search matching most of a large table costs what `atMost` rows cost. */
export async function countSearchUsers(db: Executor, filter: UserSearchFilter, atMost: number): Promise<number> {
  const matches = searchedUsers(db, filter).clearSelect().select('users.id').limit(atMost)
  return countOf(db, db.selectFrom(matches.as('matches')).select((eb) => eb.fn.countAll<number | string>().as('count')), scansTable(db, [filter.name, filter.text]))
}

export async function findUserByEmailOrUsername(db: Executor, email: string, username: string): Promise<UserRow | undefined> {
  return liveUsers(db)
    .where((eb) => eb.or([eb(eb.fn('lower', ['users.email']), '=', email.toLowerCase()), eb('users.username', '=', username)]))
    .orderBy('users.id')
    .executeTakeFirst()
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

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const usersFunctions = {
  findUserById,
  // The same read under a second name, declared replica-safe: a profile shown, not a decision made about the user.
  findProfileById: findUserById,
  findUsersByIds,
  findAnyUserById,
  findUserInLiveSession,
  findCaller,
  emailTaken,
  usernameTaken,
  findCredentials,
  findLoginAccount,
  findHashedPassword,
  findActiveUserByEmail,
  setHashedPassword,
  findMailboxProven,
  markEmailVerified,
  insertUser,
  updateUser,
  findFieldsForChange,
  setSuperuser,
  softDeleteUser,
  findDeletion,
  restoreUser,
  deleteUserPermanently,
  countUsers,
  listUsers,
  searchUsers,
  countSearchUsers,
  findUserByEmailOrUsername,
  setUserTier,
  setBan,
  clearBan,
  findExpiredBans,
  clearExpiredBan,
  findBanMessage,
  scheduleDeletion,
  cancelScheduledDeletion,
  findDueDeletions,
  findScheduledDeletion,
  findServiceAccount,
  insertServiceAccount,
}
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const usersReadTargets: ReadTargets<typeof usersFunctions> = {
  findUserById: 'primary',
  findProfileById: 'replica',
  findUsersByIds: 'replica',
  findAnyUserById: 'primary',
  findUserInLiveSession: 'primary',
  findCaller: 'primary',
  emailTaken: 'primary',
  usernameTaken: 'primary',
  findCredentials: 'primary',
  findLoginAccount: 'primary',
  findHashedPassword: 'primary',
  findActiveUserByEmail: 'primary',
  setHashedPassword: 'write',
  findMailboxProven: 'primary',
  markEmailVerified: 'write',
  insertUser: 'write',
  updateUser: 'write',
  findFieldsForChange: 'write',
  setSuperuser: 'write',
  softDeleteUser: 'write',
  findDeletion: 'primary',
  restoreUser: 'write',
  deleteUserPermanently: 'write',
  countUsers: 'replica',
  listUsers: 'replica',
  searchUsers: 'replica',
  countSearchUsers: 'replica',
  findUserByEmailOrUsername: 'primary',
  setUserTier: 'write',
  setBan: 'write',
  clearBan: 'write',
  findExpiredBans: 'primary',
  clearExpiredBan: 'write',
  findBanMessage: 'primary',
  scheduleDeletion: 'write',
  cancelScheduledDeletion: 'write',
  findDueDeletions: 'primary',
  findScheduledDeletion: 'primary',
  findServiceAccount: 'primary',
  insertServiceAccount: 'write',
}

export type UsersRepository = Repository<typeof usersFunctions>
