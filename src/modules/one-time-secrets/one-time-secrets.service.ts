// The one store for single-use secrets: issue by purpose, spend exactly once (atomically, across
// processes), expire and prune; hashed at rest. A secret is either a token (256 random bits, in a
// link or a cookie) or a code a person types (six digits), which is guessed against at most
// `maxAttempts` times before it dies. Every purpose has its lifetime and attempts here, so a fix to
// how secrets are spent is made once.
import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto'

import type { Unit } from '../../db/unit-of-work.js'
import { hashedKey } from '../../shared/hashed-key.js'
import type { OneTimeSecretsRepository } from './one-time-secrets.repository.js'

/** What each purpose's secrets are for, how long they live and how many codes may be tried. */
export const SECRET_PURPOSES = {
  /** A six-digit code mailed to prove the mailbox again, for an account with no other proof. */
  reauthentication_code: { seconds: 10 * 60, maxAttempts: 5 },
} as const satisfies Record<string, { seconds: number; maxAttempts: number }>

export type SecretPurpose = keyof typeof SECRET_PURPOSES

export interface IssuedSecret {
  /** What goes in a link or a cookie. */
  token: string
  /** The six digits a person types, when a code was asked for. */
  code?: string
}

export interface SpentSecret {
  userId: number | null
  data: unknown
}

export class OneTimeSecrets {
  constructor(
    private readonly repository: OneTimeSecretsRepository,
    /** Keys the codes' hashes (the service's secret): a copied table gives no code away. */
    private readonly codeKey: string,
  ) {}

  /** A new secret of `purpose`; earlier live ones of the user for it stop working. Written in `unit` when given. */
  async issue(purpose: SecretPurpose, options: { userId: number | null; code?: boolean; data?: unknown; unit?: Unit }): Promise<IssuedSecret> {
    const repository = options.unit ? this.repository.in(options.unit) : this.repository
    const token = randomBytes(32).toString('base64url')
    const secretHash = hashedKey(token)
    const code = options.code ? randomInt(0, 1_000_000).toString().padStart(6, '0') : undefined
    if (options.userId !== null) await repository.retireSecrets(purpose, options.userId)
    await repository.insertSecret({
      secret_hash: secretHash,
      purpose,
      user_id: options.userId,
      code_hash: code === undefined ? null : this.codeHash(secretHash, code),
      attempts: 0,
      data: options.data === undefined ? null : JSON.stringify(options.data),
      expires_at: new Date(Date.now() + SECRET_PURPOSES[purpose].seconds * 1000).toISOString(),
      created_at: new Date().toISOString(),
    })
    return code === undefined ? { token } : { token, code }
  }

  /** Spends a token of `purpose`, once; undefined for an unknown, used or expired one. */
  async spend(purpose: SecretPurpose, token: string): Promise<SpentSecret | undefined> {
    const row = await this.repository.spendSecret(purpose, hashedKey(token), SECRET_PURPOSES[purpose].maxAttempts)
    return row && toSpent(row)
  }

  /**
   * Spends the user's live code of `purpose` that `code` matches. Each call takes an attempt from
   * every live code of theirs before comparing, so concurrent guesses get no more than the limit;
   * an unknown user (id 0) costs the same UPDATE.
   */
  async spendCode(purpose: SecretPurpose, userId: number, code: string): Promise<SpentSecret | undefined> {
    const live = await this.repository.takeCodeAttempt(purpose, userId, SECRET_PURPOSES[purpose].maxAttempts)
    const match = live.find((row) => row.code_hash !== null && sameHash(row.code_hash, this.codeHash(row.secret_hash, code)))
    const row = match && (await this.repository.spendTakenSecret(match.secret_hash))
    return row ? toSpent(row) : undefined
  }

  /** Spends every live secret of `purpose` for the user. */
  retire(purpose: SecretPurpose, userId: number): Promise<void> {
    return this.repository.retireSecrets(purpose, userId)
  }

  prune(): Promise<void> {
    return this.repository.deleteExpiredSecrets()
  }

  private codeHash(secretHash: string, code: string): string {
    return createHmac('sha256', this.codeKey).update(`${secretHash}:${code}`).digest('hex')
  }
}

const toSpent = (row: { user_id: number | null; data: string | null }): SpentSecret => ({
  userId: row.user_id === null ? null : Number(row.user_id),
  data: row.data === null ? undefined : (JSON.parse(row.data) as unknown),
})

function sameHash(stored: string, computed: string): boolean {
  return stored.length === computed.length && timingSafeEqual(Buffer.from(stored), Buffer.from(computed))
}
