// A read model across features: the ways a user can sign in (a password, linked identities,
// passkeys), so that no feature removes the last of them while another feature holds the rest.
import { isPostgres } from '../../db/dialect.js'
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { NO_PASSWORD } from '../users/index.js'

/**
 * Inside a transaction: holds the user's row until it ends, so another removal of one of their
 * ways in waits, then counts what this one left. SQLite needs nothing: a transaction holds its
 * only connection, so no other statement runs until it ends.
 */
export async function lockWaysIn(db: Executor, userId: number): Promise<void> {
  if (isPostgres(db)) await db.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute()
}

export async function countWaysIn(db: Executor, userId: number): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => [
      eb.case().when('hashed_password', '=', NO_PASSWORD).then(0).else(1).end().as('password'),
      eb.selectFrom('user_identities').select((inner) => inner.fn.countAll().as('count')).whereRef('user_identities.user_id', '=', 'users.id').as('identities'),
      eb.selectFrom('passkeys').select((inner) => inner.fn.countAll().as('count')).whereRef('passkeys.user_id', '=', 'users.id').as('passkeys'),
    ])
    .where('id', '=', userId)
    .executeTakeFirst()
  return row ? Number(row.password) + Number(row.identities ?? 0) + Number(row.passkeys ?? 0) : 0
}

export const signInMethodsFunctions = { lockWaysIn, countWaysIn }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const signInMethodsReadTargets: ReadTargets<typeof signInMethodsFunctions> = {
  lockWaysIn: 'write',
  countWaysIn: 'primary',
}

export type SignInMethodsRepository = Repository<typeof signInMethodsFunctions>
