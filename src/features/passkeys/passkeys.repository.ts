// Passkeys' rows (their challenges are one-time secrets). The signature counter moves by a
// conditional UPDATE, so of two responses racing with one counter value one wins.
import type { Insertable } from 'kysely'

import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'
import type { PasskeysTable } from './passkeys.table.js'

export function listPasskeysOf(db: Executor, userId: number) {
  return db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute()
}

export function findPasskeyByCredentialId(db: Executor, credentialId: string) {
  return db.selectFrom('passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst()
}

export async function countPasskeysOf(db: Executor, userId: number): Promise<number> {
  const row = await db.selectFrom('passkeys').select((eb) => eb.fn.countAll().as('count')).where('user_id', '=', userId).executeTakeFirst()
  return Number(row?.count ?? 0)
}

/** False when the credential is registered already (to this account or another). */
export async function insertPasskey(db: Executor, row: Insertable<PasskeysTable>): Promise<boolean> {
  const result = await db.insertInto('passkeys').values(row).onConflict((conflict) => conflict.column('credential_id').doNothing()).executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
}

/**
 * Takes the new signature counter, only forward: of two responses racing with one counter value,
 * one wins. A counter of 0 (authenticators that keep none) always passes.
 */
export async function advancePasskeyCounter(db: Executor, id: string, counter: number, previous: number): Promise<boolean> {
  const result = await db
    .updateTable('passkeys')
    .set({ counter, last_used_at: nowIso() })
    .where('id', '=', id)
    .where('counter', '=', previous)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function renamePasskey(db: Executor, userId: number, id: string, name: string): Promise<boolean> {
  const result = await db.updateTable('passkeys').set({ name }).where('id', '=', id).where('user_id', '=', userId).executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function deletePasskey(db: Executor, userId: number, id: string): Promise<boolean> {
  const result = await db.deleteFrom('passkeys').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

export async function deletePasskeysOf(db: Executor, userId: number): Promise<number> {
  const result = await db.deleteFrom('passkeys').where('user_id', '=', userId).executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Removes every passkey of the user but `keepIds`; the names of those removed. */
export async function deletePasskeysOfExcept(db: Executor, userId: number, keepIds: string[]): Promise<string[]> {
  const rows = await db
    .deleteFrom('passkeys')
    .where('user_id', '=', userId)
    .$if(keepIds.length > 0, (qb) => qb.where('id', 'not in', keepIds))
    .returning('name')
    .execute()
  return rows.map((row) => row.name)
}

/** This feature's data access for its service (src/db/repository.ts). */
export const passkeysFunctions = {
  listPasskeysOf,
  findPasskeyByCredentialId,
  countPasskeysOf,
  insertPasskey,
  advancePasskeyCounter,
  renamePasskey,
  deletePasskey,
  deletePasskeysOf,
  deletePasskeysOfExcept,
}
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const passkeysReadTargets: ReadTargets<typeof passkeysFunctions> = {
  listPasskeysOf: 'primary',
  findPasskeyByCredentialId: 'primary',
  countPasskeysOf: 'primary',
  insertPasskey: 'write',
  advancePasskeyCounter: 'write',
  renamePasskey: 'write',
  deletePasskey: 'write',
  deletePasskeysOf: 'write',
  deletePasskeysOfExcept: 'write',
}

export type PasskeysRepository = Repository<typeof passkeysFunctions>
