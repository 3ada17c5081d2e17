// The asymmetric keys access tokens are signed with (JWT_ALGORITHM EdDSA, ES256 or RS256), so
// that other services verify them from /.well-known/jwks.json alone. Given by JWT_PRIVATE_KEY
// (with JWT_PRIVATE_KEY_PREVIOUS during a rotation), or else made on first start and kept in the
// database, sealed under SECRET_KEY, so every process and machine signs with the same one; a
// rotation (npm run rotate-signing-key) makes a new one and retires the rest, which stay
// published and accepted until the tokens they signed have expired. Each process reads the keys
// again every minute, and at once (at most once a second) for a key id it does not know.
import type { CryptoKey, JWK } from 'jose'
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair, importJWK, importPKCS8 } from 'jose'

import { serviceUnavailable } from '../../shared/errors.js'
import type { SecretBox } from '../../shared/secret-box.js'
import type { SigningKeyRow, SigningKeysRepository } from './signing-keys.repository.js'

export const ASYMMETRIC_ALGORITHMS = ['EdDSA', 'ES256', 'RS256'] as const
export type AsymmetricAlgorithm = (typeof ASYMMETRIC_ALGORITHMS)[number]

export interface SigningKey {
  kid: string
  algorithm: AsymmetricAlgorithm
  /** Undefined for a key this process only verifies with. */
  privateKey: CryptoKey | undefined
  publicKey: CryptoKey
  /** As published: kty and the key's parameters, kid, alg, use. */
  jwk: JWK
}

export interface SigningKeyOptions {
  algorithm: AsymmetricAlgorithm
  /** JWT_PRIVATE_KEY (PKCS #8 PEM): the key, instead of one kept in the database. */
  privateKeyPem: string | undefined
  /** JWT_PRIVATE_KEY_PREVIOUS: keys still accepted and published after JWT_PRIVATE_KEY changed. */
  previousPrivateKeyPems: string[]
  /** How long a retired key stays published and accepted (the access tokens' lifetime, and a margin). */
  keepRetiredMs: number
}

const RELOAD_MS = 60_000
const UNKNOWN_KID_RELOAD_MS = 1000

interface Loaded {
  at: number
  current: SigningKey
  byKid: Map<string, SigningKey>
}

/** A published key, for verifying only. */
async function fromPublicJwk(jwk: JWK, algorithm: AsymmetricAlgorithm): Promise<SigningKey> {
  const { kid = '', kty, crv, x, y, n, e } = jwk
  const publicJwk = Object.fromEntries(Object.entries({ kty, crv, x, y, n, e }).filter(([, value]) => value !== undefined)) as JWK
  return { kid, algorithm, privateKey: undefined, publicKey: (await importJWK(publicJwk, algorithm)) as CryptoKey, jwk }
}

/** A private key as a signing key: its public half and RFC 7638 thumbprint derived from it. */
async function fromPrivatePem(pem: string, algorithm: AsymmetricAlgorithm): Promise<SigningKey> {
  const privateKey = await importPKCS8(pem, algorithm, { extractable: true })
  const { d: _private, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = await exportJWK(privateKey)
  const kid = await calculateJwkThumbprint(publicJwk)
  const publicKey = (await importJWK(publicJwk, algorithm)) as CryptoKey
  return { kid, algorithm, privateKey, publicKey, jwk: { ...publicJwk, kid, alg: algorithm, use: 'sig' } }
}

/** What SigningKeys is built from. */
export interface SigningKeysDependencies {
  repository: SigningKeysRepository
  box: SecretBox
  options: SigningKeyOptions
  /** Told why the keys could not be read (the answer is a plain 503). */
  onLoadError?: (error: unknown) => void
  now?: () => number
}

export class SigningKeys {
  private loaded: Loaded | undefined
  private loading: Promise<Loaded> | undefined
  private lastUnknownReload = 0
  private readonly droppedListeners: (() => void)[] = []

  private readonly repository: SigningKeysRepository
  private readonly box: SecretBox
  private readonly options: SigningKeyOptions
  /** Told why the keys could not be read (the answer is a plain 503). */
  private readonly onLoadError: (error: unknown) => void
  private readonly now: () => number

  constructor(dependencies: SigningKeysDependencies) {
    this.repository = dependencies.repository
    this.box = dependencies.box
    this.options = dependencies.options
    this.onLoadError = dependencies.onLoadError ?? (() => {})
    this.now = dependencies.now ?? Date.now
  }

  get algorithm(): AsymmetricAlgorithm {
    return this.options.algorithm
  }

  /** Calls `listener` when a reload finds a key gone that was known before (deleted): what it verified must be checked again. */
  onKeyDropped(listener: () => void): void {
    this.droppedListeners.push(listener)
  }

  /** The key new tokens are signed with. */
  async current(): Promise<SigningKey> {
    return (await this.fresh()).current
  }

  /** The key a token names, if it is one this service signs or signed with lately. */
  async find(kid: string): Promise<SigningKey | undefined> {
    const loaded = await this.fresh()
    const known = loaded.byKid.get(kid)
    if (known || this.now() - this.lastUnknownReload < UNKNOWN_KID_RELOAD_MS) return known
    // Another process may have rotated: read again, at most once a second.
    this.lastUnknownReload = this.now()
    return (await this.reload()).byKid.get(kid)
  }

  /** The public keys, for /.well-known/jwks.json. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const loaded = await this.fresh()
    return { keys: [...loaded.byKid.values()].map((key) => key.jwk) }
  }

  /**
   * A new key signs from now on; the others are retired, still accepted until their tokens
   * expire, or with `dropOthers` (a key that leaked) refused from now on. Its kid.
   */
  async rotate({ dropOthers = false }: { dropOthers?: boolean } = {}): Promise<string> {
    if (this.options.privateKeyPem !== undefined) throw new Error('JWT_PRIVATE_KEY is set: rotate by setting a new one and moving the old one to JWT_PRIVATE_KEY_PREVIOUS')
    const key = await this.generate()
    await this.repository.retireSigningKeysBut(key.kid, new Date(this.now()).toISOString())
    if (dropOthers) await this.repository.deleteSigningKeysBut(key.kid)
    await this.reload()
    return key.kid
  }

  /** Deletes keys retired so long ago that no token they signed is alive. */
  prune(): Promise<void> {
    return this.repository.deleteSigningKeysRetiredBefore(new Date(this.now() - this.options.keepRetiredMs).toISOString())
  }

  private async fresh(): Promise<Loaded> {
    if (this.loaded && this.now() - this.loaded.at < RELOAD_MS) return this.loaded
    return this.reload()
  }

  private reload(): Promise<Loaded> {
    this.loading ??= this.load()
      .then((loaded) => {
        const before = this.loaded
        this.loaded = loaded
        if (before && [...before.byKid.keys()].some((kid) => !loaded.byKid.has(kid))) for (const listener of this.droppedListeners) listener()
        return loaded
      })
      .catch((error: unknown) => {
        // A store that cannot be read: keep signing with what is known, else answer 503.
        if (this.loaded) return this.loaded
        this.onLoadError(error)
        throw serviceUnavailable()
      })
      .finally(() => {
        this.loading = undefined
      })
    return this.loading
  }

  private async load(): Promise<Loaded> {
    const at = this.now()
    if (this.options.privateKeyPem !== undefined) {
      const current = await fromPrivatePem(this.options.privateKeyPem, this.options.algorithm)
      const previous = await Promise.all(this.options.previousPrivateKeyPems.map((pem) => fromPrivatePem(pem, this.options.algorithm)))
      return { at, current, byKid: new Map([current, ...previous].map((key) => [key.kid, { ...key, privateKey: key === current ? key.privateKey : undefined }])) }
    }
    const since = new Date(at - this.options.keepRetiredMs).toISOString()
    let rows = await this.repository.listSigningKeys(since)
    let current = await this.signer(rows)
    if (!current) {
      await this.generate()
      rows = await this.repository.listSigningKeys(since)
      current = await this.signer(rows)
    }
    if (!current) throw new Error(`no signing key for ${this.options.algorithm} could be made`)
    // Every key listed verifies (its public half is stored as is); only the one that signs is opened.
    const verifying = await Promise.all(rows.map(async (row) => fromPublicJwk(JSON.parse(row.public_jwk) as JWK, row.algorithm as AsymmetricAlgorithm)))
    return { at, current, byKid: new Map([...verifying.map((key): [string, SigningKey] => [key.kid, key]), [current.kid, current]]) }
  }

  /**
   * The newest live key of the configured algorithm that this SECRET_KEY (or a previous one)
   * opens; one sealed under a previous key is sealed again under the current one, so that
   * SECRET_KEY_PREVIOUS can later be dropped. Two processes that each made a key at the same
   * first start agree on the newest.
   */
  private async signer(rows: SigningKeyRow[]): Promise<SigningKey | undefined> {
    for (const row of rows) {
      if (row.retired_at !== null || row.algorithm !== this.options.algorithm) continue
      let pem: string
      try {
        pem = this.box.open(row.private_key)
      } catch {
        // Sealed under a SECRET_KEY no longer known: it can still verify, never sign.
        continue
      }
      if (this.box.isStale(row.private_key)) await this.repository.resealSigningKey(row.kid, this.box.seal(pem))
      return fromPrivatePem(pem, this.options.algorithm)
    }
    return undefined
  }

  private async generate(): Promise<SigningKey> {
    const { privateKey } = await generateKeyPair(this.options.algorithm, { extractable: true, ...(this.options.algorithm === 'RS256' ? { modulusLength: 2048 } : {}) })
    const pem = await exportPKCS8(privateKey)
    const key = await fromPrivatePem(pem, this.options.algorithm)
    await this.repository.insertSigningKey({
      kid: key.kid,
      algorithm: key.algorithm,
      private_key: this.box.seal(pem),
      public_jwk: JSON.stringify(key.jwk),
      created_at: new Date(this.now()).toISOString(),
    })
    return key
  }
}
