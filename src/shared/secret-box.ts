// Secrets the service must read back (TOTP seeds, webhook signing secrets), encrypted at rest: AES-256-GCM under a key
// derived from SECRET_KEY by HKDF, so a copied database gives no seed away. Each box names its
// key by a fingerprint; boxes made under a key listed in SECRET_KEY_PREVIOUS still open, so
// rotating SECRET_KEY keeps every enrolled authenticator working.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

import { keyIdOf } from './key-id.js'

const FORMAT = 'v1'
/** What the keys are for, bound into their derivation: a box made for one purpose opens for no other. */
const SECOND_FACTOR_SECRETS = 'user-post-service second-factor secrets'

const deriveKey = (secret: string, purpose: string) => Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), purpose, 32))

export class SecretBox {
  private readonly current: { id: string; key: Buffer }
  private readonly keysById: Map<string, Buffer>

  constructor(secret: string, previousSecrets: readonly string[] = [], purpose = SECOND_FACTOR_SECRETS) {
    this.current = { id: keyIdOf(secret), key: deriveKey(secret, purpose) }
    this.keysById = new Map([[this.current.id, this.current.key], ...previousSecrets.map((old) => [keyIdOf(old), deriveKey(old, purpose)] as const)])
  }

  /** `v1.<key id>.<iv>.<ciphertext>.<tag>`, base64url parts. */
  seal(plain: string): string {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv)
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
    return [FORMAT, this.current.id, iv.toString('base64url'), sealed.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.')
  }

  /** The plain text; throws when the box is malformed, tampered with, or sealed under a key no longer known. */
  open(box: string): string {
    const [format, keyId, iv, sealed, tag] = box.split('.')
    const key = keyId === undefined ? undefined : this.keysById.get(keyId)
    if (format !== FORMAT || !key || iv === undefined || sealed === undefined || tag === undefined) throw new Error('secret box cannot be opened with the configured keys')
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8')
  }

  /** Whether the box was sealed under an earlier key (it is then sealed again under the current one). */
  isStale(box: string): boolean {
    return box.split('.')[1] !== this.current.id
  }
}
