// Linked identities, sign-in flows and hand-off codes: each flow and code is spent once by a
// conditional UPDATE, so of two racing requests exactly one wins.
import type { Insertable } from 'kysely'

import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'
import type { IdentityLinkTicketsTable, SignInCodesTable, SignInFlowsTable, UserIdentitiesTable, UserIdentityRow } from './identities.table.js'

export function findIdentity(db: Executor, provider: string, subject: string): Promise<UserIdentityRow | undefined> {
  return db.selectFrom('user_identities').selectAll().where('provider', '=', provider).where('subject', '=', subject).executeTakeFirst()
}

export function listIdentitiesOf(db: Executor, userId: number): Promise<UserIdentityRow[]> {
  return db.selectFrom('user_identities').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute()
}

export async function insertIdentity(db: Executor, row: Insertable<UserIdentitiesTable>): Promise<void> {
  await db.insertInto('user_identities').values(row).execute()
}

export async function insertSignInFlow(db: Executor, row: Insertable<SignInFlowsTable>): Promise<void> {
  await db.insertInto('sign_in_flows').values(row).execute()
}

/** Spends a live flow by its state's hash; undefined for an unknown, used or expired one. */
export function spendSignInFlow(db: Executor, stateHash: string) {
  const now = nowIso()
  return db
    .updateTable('sign_in_flows')
    .set({ used_at: now })
    .where('state_hash', '=', stateHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['browser_hash', 'provider', 'nonce', 'code_verifier', 'redirect_to', 'link_user_id', 'handoff_challenge'])
    .executeTakeFirst()
}

export async function insertSignInCode(db: Executor, row: Insertable<SignInCodesTable>): Promise<void> {
  await db.insertInto('sign_in_codes').values(row).execute()
}

/**
 * Spends a live hand-off code presented with its binding (the PKCE challenge of the verifier
 * given, or the hash of the browser's hand-off cookie); undefined for an unknown, used or expired
 * code, or one presented without its binding (which stays unspent).
 */
export function spendSignInCode(db: Executor, codeHash: string, challenge: string | undefined, browserHash: string | undefined): Promise<{ user_id: number; method: string } | undefined> {
  const now = nowIso()
  return db
    .updateTable('sign_in_codes')
    .set({ used_at: now })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .where((eb) =>
      eb.or([
        ...(challenge === undefined ? [] : [eb('code_challenge', '=', challenge)]),
        ...(browserHash === undefined ? [] : [eb('browser_hash', '=', browserHash)]),
        // Nothing presented matches nothing.
        ...(challenge === undefined && browserHash === undefined ? [eb.lit(false)] : []),
      ]),
    )
    .returning(['user_id', 'method'])
    .executeTakeFirst()
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

export async function insertLinkTicket(db: Executor, row: Insertable<IdentityLinkTicketsTable>): Promise<void> {
  await db.insertInto('identity_link_tickets').values(row).execute()
}

/** Spends a live link ticket; undefined for an unknown, used or expired one. */
export function spendLinkTicket(db: Executor, ticketHash: string) {
  const now = nowIso()
  return db
    .updateTable('identity_link_tickets')
    .set({ used_at: now })
    .where('ticket_hash', '=', ticketHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['browser_hash', 'user_id', 'provider', 'redirect_to'])
    .executeTakeFirst()
}

export async function deleteExpiredSignInState(db: Executor): Promise<void> {
  const now = nowIso()
  await db.deleteFrom('sign_in_flows').where('expires_at', '<', now).execute()
  await db.deleteFrom('sign_in_codes').where('expires_at', '<', now).execute()
  await db.deleteFrom('identity_link_tickets').where('expires_at', '<', now).execute()
}

/** This module's data access for its service (src/db/repository.ts). */
export const identitiesFunctions = {
  findIdentity,
  listIdentitiesOf,
  insertIdentity,
  insertSignInFlow,
  spendSignInFlow,
  insertSignInCode,
  spendSignInCode,
  deleteIdentityOf,
  deleteIdentitiesOfExcept,
  insertLinkTicket,
  spendLinkTicket,
  deleteExpiredSignInState,
}
export type IdentitiesRepository = Repository<typeof identitiesFunctions>
