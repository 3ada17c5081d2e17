// The users table as a superuser browses it: every state (live, soft-deleted), sorted by an
// indexed column, searched by name, username or exact email.
import { sql } from 'kysely'

import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import { liveRowCount } from '../../db/row-counts.js'
import type { Executor } from '../../db/schema.js'
import type { RowWindow } from '../../shared/paging.js'
import type { UserDirectoryQuery } from './user.js'
import { nameOrUsernameContains } from './users.repository.js'
import type { ManagedUserRow } from './users.table.js'
import { USER_TABLE_COLUMNS } from './users.table.js'

function directory(db: Executor, { search, status }: Pick<UserDirectoryQuery, 'search' | 'status'>) {
  return db
    .selectFrom('users')
    .$if(status !== 'all', (qb) => qb.where('users.is_deleted', '=', status === 'deleted' ? 1 : 0))
    .$if(search !== undefined, (qb) =>
      // An address is looked up whole in the lower(email) index; any other text by name or username.
      search?.includes('@')
        ? qb.where((eb) => eb(eb.fn('lower', ['users.email']), '=', search.toLowerCase()))
        : qb.where(nameOrUsernameContains(db, search ?? '')),
    )
}

/** Every column a superuser sees, by any state; undefined when there is no row. */
export function findManagedUser(db: Executor, id: number): Promise<ManagedUserRow | undefined> {
  return managedUsers(db).where('users.id', '=', id).executeTakeFirst()
}

function managedUsers(db: Executor) {
  return db
    .selectFrom('users')
    .leftJoin('tiers', 'tiers.id', 'users.tier_id')
    .select(USER_TABLE_COLUMNS.map((column) => `users.${column}` as const))
    .select(['tiers.name as tier_name', 'users.is_deleted', 'users.deleted_at', 'users.ban_reason'])
}

const SORT_KEYS = {
  id: sql.ref('users.id'),
  username: sql.ref('users.username'),
  email: sql`lower(users.email)`,
} as const

/**
 * One page in the query's order. Every sort key is indexed, and the page's ids are picked from
 * that index alone before their rows are read and joined, so an offset skips index entries.
 */
export function listManagedUsers(db: Executor, query: UserDirectoryQuery, { offset, limit }: RowWindow): Promise<ManagedUserRow[]> {
  const key = SORT_KEYS[query.sort]
  const direction = query.descending ? 'desc' : 'asc'
  const ids = directory(db, query).select('users.id').orderBy(key, direction).limit(limit).offset(offset)
  return managedUsers(db).where('users.id', 'in', ids).orderBy(key, direction).execute()
}

export async function countManagedUsers(db: Executor, query: UserDirectoryQuery): Promise<number> {
  if (query.status === 'live' && query.search === undefined) return liveRowCount(db, 'users')
  const { count } = await directory(db, query)
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow()
  return Number(count)
}

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const userDirectoryFunctions = { findManagedUser, listManagedUsers, countManagedUsers }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const userDirectoryReadTargets: ReadTargets<typeof userDirectoryFunctions> = {
  findManagedUser: 'replica',
  listManagedUsers: 'replica',
  countManagedUsers: 'replica',
}

export type UserDirectoryRepository = Repository<typeof userDirectoryFunctions>
