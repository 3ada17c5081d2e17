// Whether a door asks for a CAPTCHA, and checking the one it gets. `always` asks every time;
// `adaptive` only when risk is raised (risk.ts): failures from the address or on the account in
// the window, a burst of sign-ups from the network, or a device the account has not used while
// the account has failures. A refused or used token counts as a failure, so a bot that keeps
// trying keeps being asked.
import { DomainError, SERVICE_UNAVAILABLE } from '../../shared/errors.js'
import type { ClientInfo, SecurityEventService } from '../security-events/index.js'
import type { CaptchaVerifier } from './captcha-verifier.js'
import type { Door } from './doors.js'
import type { RiskSignals } from './risk.js'
import type { CaptchaSettings } from './settings.js'

export const CAPTCHA_FAILED = 'The CAPTCHA token was not accepted: solve it again'

export interface DoorRequest {
  door: Door
  address: string
  /** The account the request names (a login name, an email address), when it names one. */
  subject: string | undefined
  /** From X-Captcha-Token or the body's captcha_token. */
  token: string | undefined
  /** Whether the request carries the device cookie of the account it names. */
  knownDevice(): Promise<boolean>
}

/** What happens on every outcome, for the metrics. */
export type CaptchaOutcome = 'asked' | 'passed' | 'failed'

/** What CaptchaGate is built from. */
export interface CaptchaGateDependencies {
  settings: CaptchaSettings
  verifier: CaptchaVerifier
  risk: RiskSignals
  securityEvents: SecurityEventService
  counted?: (outcome: CaptchaOutcome, door: Door) => void
}

export class CaptchaGate {
  private readonly settings: CaptchaSettings
  private readonly verifier: CaptchaVerifier
  private readonly risk: RiskSignals
  private readonly securityEvents: SecurityEventService
  private readonly counted: (outcome: CaptchaOutcome, door: Door) => void

  constructor(dependencies: CaptchaGateDependencies) {
    this.settings = dependencies.settings
    this.verifier = dependencies.verifier
    this.risk = dependencies.risk
    this.securityEvents = dependencies.securityEvents
    this.counted = dependencies.counted ?? (() => {})
  }

  /** Lets the request through, or refuses it: 400 captcha_required with the site key, 400 captcha_failed, 503 when the verifier is away. */
  async check(request: DoorRequest, client: ClientInfo): Promise<void> {
    if (!(await this.required(request))) return
    if (request.token === undefined) {
      this.counted('asked', request.door)
      // Names the setting that asked: always, or adaptive once risk is raised.
      throw new DomainError('invalid', `Solve the CAPTCHA and send its token (CAPTCHA_MODE=${this.settings.mode})`, { code: 'captcha_required', fields: { provider: this.settings.provider, site_key: this.settings.siteKey } })
    }
    const verdict = await this.verifier.verify(request.token, request.address)
    if (verdict === 'passed') {
      this.counted('passed', request.door)
      return
    }
    if (verdict === 'unavailable') throw new DomainError('unavailable', SERVICE_UNAVAILABLE, { code: 'service_unavailable', retryAfterSeconds: 5 })
    this.counted('failed', request.door)
    await this.failed(request)
    await this.securityEvents.record('captcha_failed', null, client)
    throw new DomainError('invalid', CAPTCHA_FAILED, { code: 'captcha_failed', fields: { provider: this.settings.provider, site_key: this.settings.siteKey } })
  }

  async required(request: Pick<DoorRequest, 'door' | 'address' | 'subject' | 'knownDevice'>): Promise<boolean> {
    if (this.settings.mode === 'always') return true
    const { failureThreshold, signupThreshold } = this.settings
    const [fromAddress, onAccount] = await Promise.all([this.risk.failuresFrom(request.address), request.subject === undefined ? 0 : this.risk.failuresOn(request.subject)])
    if (fromAddress >= failureThreshold || onAccount >= failureThreshold) return true
    if (request.door === 'signup' && (await this.risk.signupsFrom(request.address)) >= signupThreshold) return true
    // Someone guessing on an account from a browser it has not seen: its owner's browsers are spared.
    return request.door === 'login' && onAccount > 0 && !(await request.knownDevice())
  }

  /** A failed attempt at a door counts against its address and the account it named. */
  async failed(request: Pick<DoorRequest, 'address' | 'subject'>): Promise<void> {
    await Promise.all([this.risk.failuresFrom(request.address, 1), request.subject === undefined ? undefined : this.risk.failuresOn(request.subject, 1)])
  }

  /** A sign-up counts towards its network's velocity. */
  async signedUp(address: string): Promise<void> {
    await this.risk.signupsFrom(address, 1)
  }
}
