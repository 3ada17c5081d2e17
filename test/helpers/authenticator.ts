// A software passkey authenticator for HTTP-level tests: it makes the WebAuthn responses a
// browser would send (packed as JSON the way PublicKeyCredential.toJSON() does), with an ES256
// key made here, attestation "none", user presence and verification flags, and a signature
// counter the test controls, so a cloned authenticator (a counter that goes backwards) can be
// played. Chromium's own virtual authenticator drives the same routes in test/browser.
import type { KeyObject } from 'node:crypto'
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto'

type CborValue = number | string | Buffer | CborValue[] | Map<CborValue, CborValue> | { [key: string]: CborValue }

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length])
  if (length < 256) return Buffer.from([(major << 5) | 24, length])
  if (length < 65536) return Buffer.from([(major << 5) | 25, length >> 8, length & 255])
  const out = Buffer.alloc(5)
  out[0] = (major << 5) | 26
  out.writeUInt32BE(length, 1)
  return out
}

/** The few CBOR types attestation objects and COSE keys use. */
function cbor(value: CborValue): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value)
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)])
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value])
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)])
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value)
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([key, item]) => [cbor(key), cbor(item)])])
}

const b64 = (bytes: Buffer) => bytes.toString('base64url')
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest()

const UP = 0x01
const UV = 0x04
const AT = 0x40

export interface RegistrationJson {
  id: string
  rawId: string
  type: 'public-key'
  response: { clientDataJSON: string; attestationObject: string; transports: string[] }
  clientExtensionResults: Record<string, never>
}

export interface AuthenticationJson {
  id: string
  rawId: string
  type: 'public-key'
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle?: string }
  clientExtensionResults: Record<string, never>
}

export class SoftwareAuthenticator {
  readonly credentialId = randomBytes(32)
  private readonly privateKey: KeyObject
  private readonly publicKey: KeyObject
  /** The signature counter the next assertion carries (after it is incremented). */
  counter = 0
  /** Whether the authenticator verifies the user (PIN, biometrics): clear it to play one that does not. */
  verifiesUser = true
  userHandle: string | undefined

  constructor(
    readonly rpId: string,
    readonly origin: string,
  ) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    this.privateKey = pair.privateKey
    this.publicKey = pair.publicKey
  }

  /** Another device holding a copy of this credential's key (a clone), with its own counter. */
  clone(): SoftwareAuthenticator {
    const copy = Object.create(SoftwareAuthenticator.prototype) as SoftwareAuthenticator
    Object.assign(copy, this)
    return copy
  }

  private flags(extra = 0) {
    return UP | (this.verifiesUser ? UV : 0) | extra
  }

  private clientData(type: string, challenge: string, origin = this.origin) {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }))
  }

  /** The answer to creation options (`challenge`, `user.id`), as the browser would post it. */
  register(options: { challenge: string; user: { id: string } }, origin = this.origin): RegistrationJson {
    this.userHandle = options.user.id
    const jwk = this.publicKey.export({ format: 'jwk' })
    const coseKey = new Map<CborValue, CborValue>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ])
    const counter = Buffer.alloc(4)
    counter.writeUInt32BE(this.counter)
    const idLength = Buffer.alloc(2)
    idLength.writeUInt16BE(this.credentialId.length)
    const authData = Buffer.concat([sha256(this.rpId), Buffer.from([this.flags(AT)]), counter, Buffer.alloc(16), idLength, this.credentialId, cbor(coseKey)])
    const attestationObject = cbor({ fmt: 'none', attStmt: {}, authData })
    return {
      id: b64(this.credentialId),
      rawId: b64(this.credentialId),
      type: 'public-key',
      response: { clientDataJSON: b64(this.clientData('webauthn.create', options.challenge, origin)), attestationObject: b64(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
    }
  }

  /** The answer to request options (`challenge`), signed with the next counter value. */
  authenticate(options: { challenge: string }, origin = this.origin): AuthenticationJson {
    this.counter += 1
    const counter = Buffer.alloc(4)
    counter.writeUInt32BE(this.counter)
    const authenticatorData = Buffer.concat([sha256(this.rpId), Buffer.from([this.flags()]), counter])
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, origin)
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), this.privateKey)
    return {
      id: b64(this.credentialId),
      rawId: b64(this.credentialId),
      type: 'public-key',
      response: { clientDataJSON: b64(clientDataJSON), authenticatorData: b64(authenticatorData), signature: b64(signature), ...(this.userHandle ? { userHandle: this.userHandle } : {}) },
      clientExtensionResults: {},
    }
  }
}
