// The WebAuthn ceremonies, through @simplewebauthn/server, loaded on first use: most processes
// never see a passkey, and the library's ASN.1 and X.509 code would load at every start.
import type * as simpleWebAuthn from '@simplewebauthn/server'
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server'

import type { PasskeyResponse } from '../auth/second-factor-gate.js'

type Library = typeof simpleWebAuthn
let library: Promise<Library> | undefined
const load = (): Promise<Library> => (library ??= import('@simplewebauthn/server'))

export type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON }

/** A new passkey's answer as the browser packs it (PublicKeyCredential.toJSON()); verifyCreation checks the rest. */
export interface PasskeyCreationResponse {
  id: string
  rawId: string
  type: 'public-key'
  response: { clientDataJSON: string; attestationObject: string; transports?: string[] }
  clientExtensionResults: object
}

/** Where passkeys are valid: the relying party's id (a host name), its name, and the page origins allowed to use them. */
export interface RelyingParty {
  id: string
  name: string
  origins: string[]
}

export interface StoredCredential {
  credentialId: string
  /** COSE public key, base64url. */
  publicKey: string
  transports: string[]
}

const CEREMONY_MS = 5 * 60 * 1000

export async function creationOptions(
  rp: RelyingParty,
  user: { handle: Uint8Array<ArrayBuffer>; name: string; displayName: string },
  exclude: StoredCredential[],
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const { generateRegistrationOptions } = await load()
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userID: user.handle,
    userName: user.name,
    userDisplayName: user.displayName,
    attestationType: 'none',
    excludeCredentials: exclude.map((credential) => ({ id: credential.credentialId, transports: credential.transports as never })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    timeout: CEREMONY_MS,
  })
}

export async function requestOptions(rp: RelyingParty, allow: StoredCredential[]): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const { generateAuthenticationOptions } = await load()
  return generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials: allow.map((credential) => ({ id: credential.credentialId, transports: credential.transports as never })),
    userVerification: 'required',
    timeout: CEREMONY_MS,
  })
}

export interface NewCredential {
  credentialId: string
  publicKey: string
  counter: number
  transports: string[]
  deviceType: string
  backedUp: boolean
}

/** The new credential, or undefined when the response does not verify (origin, RP id, challenge, user verification, signature). */
export async function verifyCreation(rp: RelyingParty, response: PasskeyCreationResponse, challenge: string): Promise<NewCredential | undefined> {
  const { verifyRegistrationResponse } = await load()
  try {
    const verification = await verifyRegistrationResponse({ response: response as RegistrationResponseJSON, expectedChallenge: challenge, expectedOrigin: rp.origins, expectedRPID: rp.id, requireUserVerification: true })
    const info = verification.registrationInfo
    if (!verification.verified || !info) return undefined
    return {
      credentialId: info.credential.id,
      publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
      counter: info.credential.counter,
      transports: info.credential.transports ?? response.response.transports ?? [],
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
    }
  } catch {
    return undefined
  }
}

/**
 * The assertion's new signature counter, or undefined when it does not verify. The counter is
 * not compared here (the library is handed 0): the caller compares it, to log a clone.
 */
export async function verifyAssertion(rp: RelyingParty, response: PasskeyResponse, challenge: string, credential: StoredCredential): Promise<number | undefined> {
  const { verifyAuthenticationResponse } = await load()
  try {
    const verification = await verifyAuthenticationResponse({
      response: response as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      credential: { id: credential.credentialId, publicKey: Buffer.from(credential.publicKey, 'base64url'), counter: 0, transports: credential.transports as never },
      requireUserVerification: true,
    })
    return verification.verified ? verification.authenticationInfo.newCounter : undefined
  } catch {
    return undefined
  }
}

/** The challenge a response answers, read from its clientDataJSON; undefined when unreadable. */
export function challengeOf(response: { response: { clientDataJSON: string } }): string | undefined {
  try {
    const clientData = JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }
    return typeof clientData.challenge === 'string' && clientData.challenge.length <= 200 ? clientData.challenge : undefined
  } catch {
    return undefined
  }
}
