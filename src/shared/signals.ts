// What services report for monitoring without depending on a metrics library: an emitter per
// process's services (src/services.ts); the metrics plugin listens when metrics are on.
import { EventEmitter } from 'node:events'

export interface SignalMap {
  /** A login attempt was answered. */
  login: [result: 'success' | 'failure']
  /** A shared store (Redis or the database) failed for revocations or rate limits. */
  'store-error': [store: 'revocation' | 'rate-limit']
  /** A door asked for a CAPTCHA, or checked one (abuse protection). */
  captcha: [outcome: 'asked' | 'passed' | 'failed', door: string]
  /** A new password was refused as breached. */
  'password-breached': []
  /** An address was refused for its domain. */
  'email-domain-blocked': []
}

export class Signals extends EventEmitter<SignalMap> {}
