// Asks the CAPTCHA provider whether a token is good: the siteverify form every provider documents
// (Turnstile, hCaptcha and reCAPTCHA take the same POST of `secret`, `response` and `remoteip`,
// and answer `{success, "error-codes"}`). A used token fails there (`timeout-or-duplicate`).
import type { CaptchaSettings } from './settings.js'
import { DEVELOPMENT_CAPTCHA, DEVELOPMENT_CAPTCHA_TOKEN } from './settings.js'

export type Verdict = 'passed' | 'failed' | 'unavailable'

export interface CaptchaVerifier {
  verify(token: string, remoteIp: string): Promise<Verdict>
}

export class SiteverifyClient implements CaptchaVerifier {
  constructor(private readonly settings: Pick<CaptchaSettings, 'verifyUrl' | 'secret' | 'timeoutMs'>) {}

  async verify(token: string, remoteIp: string): Promise<Verdict> {
    const body = new URLSearchParams({ secret: this.settings.secret, response: token, remoteip: remoteIp })
    try {
      const answer = await fetch(this.settings.verifyUrl, { method: 'POST', body, signal: AbortSignal.timeout(this.settings.timeoutMs) })
      if (!answer.ok) return 'unavailable'
      const result = (await answer.json()) as { success?: unknown }
      return result.success === true ? 'passed' : 'failed'
    } catch {
      return 'unavailable'
    }
  }
}

/** CAPTCHA_PROVIDER=development: no outside service; `pass` passes, anything else fails. */
export class DevelopmentVerifier implements CaptchaVerifier {
  async verify(token: string): Promise<Verdict> {
    return token === DEVELOPMENT_CAPTCHA_TOKEN ? 'passed' : 'failed'
  }
}

/** The verifier the settings name: the provider's siteverify, or the development one. */
export const verifierFor = (settings: CaptchaSettings): CaptchaVerifier => (settings.provider === DEVELOPMENT_CAPTCHA ? new DevelopmentVerifier() : new SiteverifyClient(settings))
