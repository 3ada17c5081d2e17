// SQL of the signing keys: the live ones (and those retired after `since`), a new one, a
// rotation that retires every key but the new one, and the deletion of retired or dropped keys.
import type { Insertable, Selectable } from 'kysely'

import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import type { SigningKeysTable } from './signing-keys.table.js'

export type SigningKeyRow = Selectable<SigningKeysTable>

/** Keys not retired, and keys retired after `since`, newest first. */
export function listSigningKeys(db: Executor, since: string): Promise<SigningKeyRow[]> {
  return db
    .selectFrom('signing_keys')
    .selectAll()
    .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', since)]))
    .orderBy('created_at', 'desc')
    .orderBy('kid')
    .execute()
}

export async function insertSigningKey(db: Executor, row: Insertable<SigningKeysTable>): Promise<void> {
  await db.insertInto('signing_keys').values(row).onConflict((oc) => oc.column('kid').doNothing()).execute()
}

/** Retires every live key but `keepKid`. */
export async function retireSigningKeysBut(db: Executor, keepKid: string, at: string): Promise<void> {
  await db.updateTable('signing_keys').set({ retired_at: at }).where('retired_at', 'is', null).where('kid', '<>', keepKid).execute()
}

/** The private key sealed again (under the current SECRET_KEY, after a rotation of it). */
export async function resealSigningKey(db: Executor, kid: string, privateKey: string): Promise<void> {
  await db.updateTable('signing_keys').set({ private_key: privateKey }).where('kid', '=', kid).execute()
}

export async function deleteSigningKeysRetiredBefore(db: Executor, before: string): Promise<void> {
  await db.deleteFrom('signing_keys').where('retired_at', '<', before).execute()
}

/** Every key but `keepKid`, at once: their tokens are refused from now on. */
export async function deleteSigningKeysBut(db: Executor, keepKid: string): Promise<void> {
  await db.deleteFrom('signing_keys').where('kid', '<>', keepKid).execute()
}

export const signingKeysFunctions = { listSigningKeys, insertSigningKey, retireSigningKeysBut, resealSigningKey, deleteSigningKeysRetiredBefore, deleteSigningKeysBut }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const signingKeysReadTargets: ReadTargets<typeof signingKeysFunctions> = {
  listSigningKeys: 'primary',
  insertSigningKey: 'write',
  retireSigningKeysBut: 'write',
  resealSigningKey: 'write',
  deleteSigningKeysRetiredBefore: 'write',
  deleteSigningKeysBut: 'write',
}

export type SigningKeysRepository = Repository<typeof signingKeysFunctions>
