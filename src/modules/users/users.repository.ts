// Runs the users module's SQL. Every function takes the executor (db or a transaction) first and
// returns rows of the users table (UserRow); the service turns them into Users.
import { flag } from '../../db/flag.js'
import { liveRowCount } from '../../db/row-counts.js'
import type { Executor } from '../../db/schema.js'
import { softDeleteRow } from '../../db/soft-delete.js'
import { likeContains } from '../../shared/like-pattern.js'
import type { RowWindow } from '../../shared/paging.js'
import { nowIso } from '../../shared/timestamps.js'
import type { UserSearchFilter } from './user.js'
import { preparedSearchByName, preparedUserById, preparedUserInLiveSession, preparedUserPage, preparedUserPageAfter } from './users.prepared.js'
import { USER_TABLE_COLUMNS, contains, liveUsers, matchKind, nameOrUsernameContains } from './users.queries.js'
import type { UserRow } from './users.queries.js'

export type { UserRow }

export interface CredentialsRow {
  id: number
  hashed_password: string
}

export interface NewUserRow {
  name: string
  username: string
  email: string
  hashed_password: string
  profile_image_url: string
  age: number | null
  is_superuser: boolean
}

export interface UserRowChanges {
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

export async function findUserInLiveSession(db: Executor, id: number, sessionId: string): Promise<UserRow | undefined> {
  const [row] = await preparedUserInLiveSession(db, id, sessionId)
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

/** Credentials of a live, active account by username or (case-insensitive) email. */
export async function findCredentials(db: Executor, login: string): Promise<CredentialsRow | undefined> {
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

/** Marks the user verified while `email` is still their address; false otherwise. */
export async function markEmailVerified(db: Executor, id: number, email: string): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ is_verified: 1, updated_at: nowIso() })
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
    .set({ is_deleted: 0, deleted_at: null, updated_at: nowIso() })
    .where('id', '=', id)
    .where('is_deleted', '=', 1)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Removes the row (soft-deleted or not); foreign keys cascade to the user's tokens and posts. Returns the avatar it owned. */
export async function deleteUserPermanently(db: Executor, id: number): Promise<{ avatar_key: string | null } | undefined> {
  return db.deleteFrom('users').where('id', '=', id).returning(['avatar_key']).executeTakeFirst()
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

/** In id order; a window with `after` starts after that id (keyset paging), else at its offset. */
export async function listUsers(db: Executor, { offset, limit, after }: RowWindow, search?: string): Promise<UserRow[]> {
  if (search === undefined) return after === undefined ? preparedUserPage(db, offset, limit) : preparedUserPageAfter(db, after, limit)
  return liveUsers(db)
    .where(nameOrUsernameContains(db, search))
    .$if(after !== undefined, (qb) => qb.where('users.id', '>', after ?? 0))
    .orderBy('users.id')
    .limit(limit)
    .offset(offset)
    .execute()
}

function searchedUsers(db: Executor, filter: UserSearchFilter) {
  return liveUsers(db)
    .where('users.is_active', '=', flag(filter.isActive))
    .$if(filter.name !== undefined, (qb) => qb.where(contains(db, 'name', filter.name ?? '')))
    .$if(filter.age !== undefined, (qb) => qb.where('users.age', '=', filter.age ?? null))
    .$if(filter.text !== undefined, (qb) => qb.where(nameOrUsernameContains(db, filter.text ?? '')))
}

export async function searchUsers(db: Executor, filter: UserSearchFilter, { offset, limit, after }: RowWindow): Promise<UserRow[]> {
  const { name } = filter
  if (name !== undefined && filter.age === undefined && filter.text === undefined && after === undefined) {
    return preparedSearchByName[matchKind(db, name)](db, flag(filter.isActive), likeContains(name), offset, limit)
  }
  return searchedUsers(db, filter)
    .$if(after !== undefined, (qb) => qb.where('users.id', '>', after ?? 0))
    .orderBy('users.id')
    .limit(limit)
    .offset(offset)
    .execute()
}

export async function countSearchUsers(db: Executor, filter: UserSearchFilter): Promise<number> {
  const { count } = await searchedUsers(db, filter)
    .clearSelect()
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow()
  return Number(count)
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
