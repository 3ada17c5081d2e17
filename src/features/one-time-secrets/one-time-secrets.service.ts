// The one store for single-use secrets: mailed links, typed codes, sign-in flows and hand-off
// codes, WebAuthn and second-factor challenges, stream tickets. Each feature declares its kinds
// (`kind()`: a purpose, a lifetime, how many guesses a code gets, whether a new one retires the
// user's earlier ones) and gets a typed handle to issue and spend them. Whatever the kind, a
// secret is stored only as its SHA-256 (a typed code as an HMAC keyed by the service's secret),
// spent exactly once by a conditional UPDATE (across processes), and pruned once expired, so a
// fix to how secrets are kept or spent is made here once.
import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto'

import type { Unit } from '../../db/unit-of-work.js'
import { hashedKey } from '../../shared/hashed-key.js'
import type { OneTimeSecretsRepository, SecretRow } from './one-time-secrets.repository.js'

export interface SecretKindOptions {
  /** How long a secret lives. */
  seconds: number
  /** Proofs tried against one secret (typed codes, second factors), right or wrong, before it dies; 1 when nothing is guessed. */
  maxAttempts?: number
  /** A new secret for a user spends their earlier live ones of the kind. */
  replacesEarlier?: boolean
}

export interface IssueOptions<Data> {
  userId: number | null
  data: Data
  /** Also a six-digit code for a person to type (spent with `spendCode`). */
  code?: boolean
  /** A value made elsewhere (a WebAuthn challenge) to keep instead of a new token. */
  secret?: string
  /** Spendable only by a request presenting this value too (`spend`'s bindings). */
  binding?: string
  /** Written in this unit of work. */
  unit?: Unit
}

export interface IssuedSecret {
  /** What goes in a link, a cookie or a URL. */
  token: string
  /** The six digits a person types, when a code was asked for. */
  code?: string
}

export interface SpentSecret<Data> {
  userId: number | null
  data: Data
  /** The secret's stored hash: names it to other records (a WebAuthn challenge made for one second-factor step). */
  handle: string
}

interface KindSettings {
  seconds: number
  maxAttempts: number
  replacesEarlier: boolean
}

/** One kind of secret: what a feature holds to issue and spend its secrets. */
export class SecretKind<Data> {
  constructor(
    readonly purpose: string,
    private readonly settings: KindSettings,
    private readonly repository: OneTimeSecretsRepository,
    private readonly codeHash: (secretHash: string, code: string) => string,
  ) {}

  get lifetimeSeconds(): number {
    return this.settings.seconds
  }

  /** Proofs tried against one secret before it dies. */
  get maxAttempts(): number {
    return this.settings.maxAttempts
  }

  /** A new secret; with `replacesEarlier`, the user's earlier live ones stop working. */
  async issue(options: IssueOptions<Data>): Promise<IssuedSecret> {
    const repository = this.bound(options.unit)
    const token = options.secret ?? randomBytes(32).toString('base64url')
    const secretHash = hashedKey(token)
    const code = options.code ? randomInt(0, 1_000_000).toString().padStart(6, '0') : undefined
    if (this.settings.replacesEarlier && options.userId !== null) await repository.retireSecrets(this.purpose, options.userId)
    const now = Date.now()
    await repository.insertSecret({
      secret_hash: secretHash,
      purpose: this.purpose,
      user_id: options.userId,
      code_hash: code === undefined ? null : this.codeHash(secretHash, code),
      binding: options.binding ?? null,
      attempts: 0,
      data: options.data === undefined ? null : JSON.stringify(options.data),
      expires_at: new Date(now + this.settings.seconds * 1000).toISOString(),
      created_at: new Date(now).toISOString(),
    })
    return code === undefined ? { token } : { token, code }
  }

  /**
   * Spends a secret by its token, once; undefined for an unknown, used, expired or exhausted one,
   * or one with a binding that `bindings` does not hold (left unspent for its rightful holder).
   */
  async spend(token: string, options: { bindings?: string[]; unit?: Unit } = {}): Promise<SpentSecret<Data> | undefined> {
    const secretHash = hashedKey(token)
    const row = await this.bound(options.unit).spendSecret(this.purpose, secretHash, this.settings.maxAttempts, options.bindings ?? [])
    return row && toSpent<Data>(row, secretHash)
  }

  /** A live secret with attempts left, neither spent nor tried (to show what a link will do before it is used). */
  async peek(token: string): Promise<SpentSecret<Data> | undefined> {
    const secretHash = hashedKey(token)
    const row = await this.repository.findLiveSecret(this.purpose, secretHash, this.settings.maxAttempts)
    return row && toSpent<Data>(row, secretHash)
  }

  /**
   * Takes one attempt from a live secret (a second-factor step): undefined when none is left.
   * The caller checks the proof, then `spendAttempted` spends it.
   */
  async attempt(token: string): Promise<SpentSecret<Data> | undefined> {
    const secretHash = hashedKey(token)
    const row = await this.repository.takeAttempt(this.purpose, secretHash, this.settings.maxAttempts)
    return row && toSpent<Data>(row, secretHash)
  }

  /** Spends a secret whose attempt was taken and whose proof was right; false when a concurrent request spent it first. */
  async spendAttempted(handle: string, options: { unit?: Unit } = {}): Promise<boolean> {
    return (await this.bound(options.unit).spendAttempted(this.purpose, handle)) !== undefined
  }

  /**
   * Spends the user's live secret whose code `code` is. Each call takes an attempt from every live
   * coded secret of theirs before comparing, so concurrent guesses get no more than the limit; an
   * unknown user (id 0) costs the same UPDATE.
   */
  async spendCode(userId: number, code: string): Promise<SpentSecret<Data> | undefined> {
    const live = await this.repository.takeCodeAttempts(this.purpose, userId, this.settings.maxAttempts)
    const match = live.find((row) => row.code_hash !== null && sameHash(row.code_hash, this.codeHash(row.secret_hash, code)))
    const row = match && (await this.repository.spendAttempted(this.purpose, match.secret_hash))
    return row && match ? toSpent<Data>(row, match.secret_hash) : undefined
  }

  /** Spends every live secret of the kind for the user. */
  retire(userId: number, options: { unit?: Unit } = {}): Promise<void> {
    return this.bound(options.unit).retireSecrets(this.purpose, userId)
  }

  private bound(unit: Unit | undefined): OneTimeSecretsRepository {
    return unit ? this.repository.in(unit) : this.repository
  }
}

export class OneTimeSecrets {
  private readonly kinds = new Map<string, SecretKind<unknown>>()

  constructor(
    private readonly repository: OneTimeSecretsRepository,
    /** Keys the codes' hashes (the service's secret): a copied table gives no code away. */
    private readonly codeKey: string,
  ) {}

  /** Declares a kind of secret, once per purpose. */
  kind<Data>(purpose: string, options: SecretKindOptions): SecretKind<Data> {
    if (this.kinds.has(purpose)) throw new Error(`one-time secret purpose ${purpose} is declared twice`)
    if (purpose.length > 32) throw new Error(`one-time secret purpose ${purpose} is longer than 32 characters`)
    const settings = { seconds: options.seconds, maxAttempts: options.maxAttempts ?? 1, replacesEarlier: options.replacesEarlier ?? false }
    const kind = new SecretKind<Data>(purpose, settings, this.repository, (secretHash, code) => this.codeHash(secretHash, code))
    this.kinds.set(purpose, kind as SecretKind<unknown>)
    return kind
  }

  /** Every kind declared (tests walk them all). */
  declared(): SecretKind<unknown>[] {
    return [...this.kinds.values()]
  }

  prune(): Promise<void> {
    return this.repository.deleteExpiredSecrets()
  }

  private codeHash(secretHash: string, code: string): string {
    return createHmac('sha256', this.codeKey).update(`${secretHash}:${code}`).digest('hex')
  }
}

const toSpent = <Data>(row: SecretRow, handle: string): SpentSecret<Data> => ({
  userId: row.user_id === null ? null : Number(row.user_id),
  data: (row.data === null ? undefined : JSON.parse(row.data)) as Data,
  handle,
})

function sameHash(stored: string, computed: string): boolean {
  return stored.length === computed.length && timingSafeEqual(Buffer.from(stored), Buffer.from(computed))
}
