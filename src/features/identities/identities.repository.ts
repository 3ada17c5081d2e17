// Linked identities (sign-in flows, hand-off codes and link tickets are one-time secrets).
import type { Insertable } from 'kysely'

import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import type { UserIdentitiesTable, UserIdentityRow } from './identities.table.js'

export function findIdentity(db: Executor, provider: string, subject: string): Promise<UserIdentityRow | undefined> {
  return db.selectFrom('user_identities').selectAll().where('provider', '=', provider).where('subject', '=', subject).executeTakeFirst()
}

export function listIdentitiesOf(db: Executor, userId: number): Promise<UserIdentityRow[]> {
  return db.selectFrom('user_identities').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute()
}

export async function insertIdentity(db: Executor, row: Insertable<UserIdentitiesTable>): Promise<void> {
  await db.insertInto('user_identities').values(row).execute()
}

/** Removes one of the user's identities; false when the user has no such identity. */
export async function deleteIdentityOf(db: Executor, userId: number, identityId: string): Promise<boolean> {
  const result = await db.deleteFrom('user_identities').where('id', '=', identityId).where('user_id', '=', userId).executeTakeFirst()
  return result.numDeletedRows > 0n
}

/** Removes every identity of the user but `keepIds`; the providers of those removed. */
export async function deleteIdentitiesOfExcept(db: Executor, userId: number, keepIds: string[]): Promise<string[]> {
  const rows = await db
    .deleteFrom('user_identities')
    .where('user_id', '=', userId)
    .$if(keepIds.length > 0, (qb) => qb.where('id', 'not in', keepIds))
    .returning('provider')
    .execute()
  return rows.map((row) => row.provider)
}

/** This feature's data access for its service (src/db/repository.ts). */
export const identitiesFunctions = {
  findIdentity,
  listIdentitiesOf,
  insertIdentity,
  deleteIdentityOf,
  deleteIdentitiesOfExcept,
}
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const identitiesReadTargets: ReadTargets<typeof identitiesFunctions> = {
  findIdentity: 'primary',
  listIdentitiesOf: 'primary',
  insertIdentity: 'write',
  deleteIdentityOf: 'write',
  deleteIdentitiesOfExcept: 'write',
}

export type IdentitiesRepository = Repository<typeof identitiesFunctions>
