// What sign-in asks of second factors, as an interface so that the auth feature does not depend on
// the mfa feature (which implements it, src/features/mfa/second-factors.service.ts). Every first
// factor but a whole one (a passkey) goes through AuthService.startBrowserSession, which asks challengeFor.
import { DomainError } from '../../shared/errors.js'
import type { ClientInfo, LoginMethod, SecondFactorMethod } from '../security-events/index.js'

export const SECOND_FACTOR_REQUIRED = 'Second factor required'

/** What a client must do next: prove a second factor with this token, by one of these methods. */
export interface SecondFactorChallenge {
  mfaToken: string
  methods: SecondFactorMethod[]
}

/** A live challenge with an attempt taken from it. */
export interface TakenChallenge {
  tokenHash: string
  userId: number
  /** The first factor that was proven. */
  method: LoginMethod
}

/** A passkey's answer as the browser packs it (PublicKeyCredential.toJSON()); the passkeys feature verifies it. */
export interface PasskeyResponse {
  id: string
  rawId: string
  type: 'public-key'
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle?: string }
  clientExtensionResults: object
}

/** A second factor as a client presents it. */
export type SecondFactorProof = { code: string } | { recoveryCode: string } | { passkeyResponse: PasskeyResponse }

export interface SecondFactorGate {
  /** A challenge when the user has a second factor (the first factor was `method`); else undefined. */
  challengeFor(userId: number, method: LoginMethod): Promise<SecondFactorChallenge | undefined>
  /** Takes one attempt from the challenge an mfa_token names (401 invalid_mfa_token when it is dead). */
  takeAttempt(mfaToken: string): Promise<TakenChallenge>
  /** Checks the proof against the challenge's user and spends the challenge (401 invalid_mfa_code when wrong). */
  prove(challenge: TakenChallenge, proof: SecondFactorProof, client: ClientInfo): Promise<void>
  /** Removes every second factor of the user (a superuser's reset); false when there was none. */
  removeAllOf(userId: number, client: ClientInfo): Promise<boolean>
}

/**
 * What enrolling a second factor does to sessions, asked of the auth feature (the mfa and passkeys
 * features are built before it, and reach it through this).
 */
export interface EnrolmentSessions {
  /** Ends every session of the user but `exceptSessionId`: one opened with the first factor alone must not outlive the new factor. */
  endOthers(userId: number, client: ClientInfo, exceptSessionId: string): Promise<number>
  /** The session proved the new factor just now (it stays fresh for sensitive actions). */
  markProven(sessionId: string, proof: 'second_factor' | 'passkey'): Promise<void>
}

export const secondFactorRequired = (challenge: SecondFactorChallenge) =>
  new DomainError('unauthenticated', SECOND_FACTOR_REQUIRED, { code: 'mfa_required', fields: { mfa_token: challenge.mfaToken, methods: challenge.methods } })

/** What enrolment does to sessions, through the auth service once it is built (the factors' slices are built before it). */
export function enrolmentSessions(auth: () => { revokeSessionsOf: EnrolmentSessions['endOthers']; markSessionProven: EnrolmentSessions['markProven'] }): EnrolmentSessions {
  return {
    endOthers: (userId, client, exceptSessionId) => auth().revokeSessionsOf(userId, client, exceptSessionId),
    markProven: (sessionId, proof) => auth().markSessionProven(sessionId, proof),
  }
}
