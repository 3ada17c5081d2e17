// The WebAuthn ceremonies, through @simplewebauthn/server, loaded on first use: most processes
// never see a passkey, and the library's ASN.1 and X.509 code would load at every start.
import type * as simpleWebAuthn from '@simplewebauthn/server'
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server'

import type { OriginList } from '../../shared/origin-list.js'
import { originMatcher } from '../../shared/origin-list.js'
import type { PasskeyResponse } from '../auth/index.js'

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
  origins: OriginList
}

/**
 * Why an answer was refused, in words that name the setting that decides it (an origin or RP id
 * that does not match is a configuration to fix, not an attack, nine times out of ten).
 */
export interface Refusal {
  refused: string
}

/** The origin an answer's clientDataJSON names, when it is one WEBAUTHN_ORIGINS lists; else the refusal. */
function listedOrigin(rp: RelyingParty, response: { response: { clientDataJSON: string } }): string | Refusal {
  const origin = clientDataOf(response)?.origin
  if (typeof origin !== 'string' || origin.length > 300) return { refused: 'the answer names no origin' }
  if (!originMatcher(rp.origins)(origin)) return { refused: `the answer came from ${origin}, which WEBAUTHN_ORIGINS does not list` }
  return origin
}

/** The library's reason, when it is about the relying party. */
function refusalOf(error: unknown, rp: RelyingParty): Refusal | undefined {
  const message = error instanceof Error ? error.message : ''
  return /RP ?ID/i.test(message) ? { refused: `the passkey is for another relying party than WEBAUTHN_RP_ID (${rp.id})` } : undefined
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

/**
 * The new credential, or undefined when the response does not verify (challenge, user
 * verification, signature), or the refusal when its origin or RP id is not this service's.
 */
export async function verifyCreation(rp: RelyingParty, response: PasskeyCreationResponse, challenge: string): Promise<NewCredential | Refusal | undefined> {
  const { verifyRegistrationResponse } = await load()
  const origin = listedOrigin(rp, response)
  if (typeof origin !== 'string') return origin
  try {
    const verification = await verifyRegistrationResponse({ response: response as RegistrationResponseJSON, expectedChallenge: challenge, expectedOrigin: origin, expectedRPID: rp.id, requireUserVerification: true })
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
  } catch (error) {
    return refusalOf(error, rp)
  }
}

/**
 * The assertion's new signature counter, undefined when it does not verify, or the refusal when
 * its origin or RP id is not this service's. The counter is not compared here (the library is
 * handed 0): the caller compares it, to log a clone.
 */
export async function verifyAssertion(rp: RelyingParty, response: PasskeyResponse, challenge: string, credential: StoredCredential): Promise<number | Refusal | undefined> {
  const { verifyAuthenticationResponse } = await load()
  const origin = listedOrigin(rp, response)
  if (typeof origin !== 'string') return origin
  try {
    const verification = await verifyAuthenticationResponse({
      response: response as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rp.id,
      credential: { id: credential.credentialId, publicKey: Buffer.from(credential.publicKey, 'base64url'), counter: 0, transports: credential.transports as never },
      requireUserVerification: true,
    })
    return verification.verified ? verification.authenticationInfo.newCounter : undefined
  } catch (error) {
    return refusalOf(error, rp)
  }
}

function clientDataOf(response: { response: { clientDataJSON: string } }): { challenge?: unknown; origin?: unknown } | undefined {
  try {
    return JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown; origin?: unknown }
  } catch {
    return undefined
  }
}

/** The challenge a response answers, read from its clientDataJSON; undefined when unreadable. */
export function challengeOf(response: { response: { clientDataJSON: string } }): string | undefined {
  const challenge = clientDataOf(response)?.challenge
  return typeof challenge === 'string' && challenge.length <= 200 ? challenge : undefined
}
