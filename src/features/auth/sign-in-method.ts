// A way to prove who is signing in. A slice offers its methods through its manifest
// (`signInMethods`); the auth slice signs in through this interface and names no method but its
// own (the password). Starting a method (a passkey's challenge, a mailed link, a provider's
// redirect) is the method's own route; what auth asks of it is here.
import type { ClientInfo, LoginMethod } from '../security-events/index.js'
import type { SessionProof } from './auth.service.js'

export interface SignInMethod<Proof = unknown> {
  /** How the sign-in is named in the security log and on the session. */
  readonly name: LoginMethod
  /** What a session it opens has proven, fresh for sensitive actions; null when it proves only a mailbox or a provider's account. */
  readonly proves: SessionProof | null
  /** A whole sign-in on its own (a passkey with user verification): no second factor is asked after it. */
  readonly complete: boolean
  /** Counts the attempt against its budget, checks the proof, and names the user it proves; 401 (or 429) otherwise. */
  verify(proof: Proof, client: ClientInfo): Promise<number>
}
