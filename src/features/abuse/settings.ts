// The abuse slice's settings (docs/configuration.md, Abuse protection).
import type { Env } from '../../shared/settings.js'
import { boolean, ConfigError, integer, oneOf, read, url } from '../../shared/settings.js'

export const CAPTCHA_PROVIDERS = ['turnstile', 'hcaptcha', 'recaptcha'] as const
export type CaptchaProvider = (typeof CAPTCHA_PROVIDERS)[number]
/**
 * CAPTCHA_PROVIDER=development: the service is its own verifier, with no outside service and no
 * keys, outside production only. The token `pass` passes (once per request), any other fails; the
 * service's own sign-up page shows a checkbox that sends it.
 */
export const DEVELOPMENT_CAPTCHA = 'development'
export const DEVELOPMENT_CAPTCHA_TOKEN = 'pass'

/** Each provider's documented siteverify endpoint and the script its widget loads from. */
export const PROVIDER_DEFAULTS: Record<CaptchaProvider, { verifyUrl: string; scriptUrl: string }> = {
  turnstile: { verifyUrl: 'https://challenges.cloudflare.com/turnstile/v0/siteverify', scriptUrl: 'https://challenges.cloudflare.com/turnstile/v0/api.js' },
  hcaptcha: { verifyUrl: 'https://api.hcaptcha.com/siteverify', scriptUrl: 'https://js.hcaptcha.com/1/api.js' },
  recaptcha: { verifyUrl: 'https://www.google.com/recaptcha/api/siteverify', scriptUrl: 'https://www.google.com/recaptcha/api.js' },
}

/** The element each provider's script turns into its widget; the widget adds the token to the form under its own name. */
export const WIDGET_CLASS: Record<CaptchaProvider, string> = { turnstile: 'cf-turnstile', hcaptcha: 'h-captcha', recaptcha: 'g-recaptcha' }
/** The form field each provider's widget writes its token into. */
export const WIDGET_FIELDS = ['cf-turnstile-response', 'h-captcha-response', 'g-recaptcha-response'] as const

export interface CaptchaSettings {
  provider: CaptchaProvider | typeof DEVELOPMENT_CAPTCHA
  secret: string
  siteKey: string
  verifyUrl: string
  /** The widget's script, for the service's own pages (CAPTCHA_SCRIPT_URL); none for the development verifier. */
  scriptUrl: string | undefined
  /** adaptive: only when risk is raised; always: on every door. */
  mode: 'adaptive' | 'always'
  /** How long failures and sign-ups count towards risk. */
  windowSeconds: number
  /** Failed attempts, from one address or on one account, that raise risk. */
  failureThreshold: number
  /** Sign-ups from one /24 (IPv4) or /64 (IPv6) that raise risk for the next. */
  signupThreshold: number
  timeoutMs: number
}

export type BreachedPasswordSource = { kind: 'off' } | { kind: 'hibp'; url: string } | { kind: 'file'; path: string }

export interface AbuseSettings {
  /** Undefined: no CAPTCHA (no provider, or CAPTCHA_MODE=off). */
  captcha: CaptchaSettings | undefined
  breachedPasswords: BreachedPasswordSource
  /** BREACHED_PASSWORDS_FAIL: what an unreachable source does. */
  breachedPasswordsFail: 'open' | 'closed'
  blockDisposableEmails: boolean
}

function captchaSettings(env: Env): CaptchaSettings | undefined {
  const provider = read(env, 'CAPTCHA_PROVIDER')
  const mode = oneOf(env, 'CAPTCHA_MODE', ['adaptive', 'always', 'off'] as const, 'adaptive')
  if (provider === undefined || mode === 'off') return undefined
  const risk = {
    mode,
    windowSeconds: integer(env, 'CAPTCHA_RISK_WINDOW_SECONDS', 900, 1, 86_400),
    failureThreshold: integer(env, 'CAPTCHA_FAILURE_THRESHOLD', 3, 1, 1000),
    signupThreshold: integer(env, 'CAPTCHA_SIGNUP_THRESHOLD', 3, 1, 100_000),
    timeoutMs: integer(env, 'CAPTCHA_TIMEOUT_MS', 3000, 100, 30_000),
  }
  if (provider === DEVELOPMENT_CAPTCHA) {
    if ((read(env, 'NODE_ENV') ?? 'development') === 'production') throw new ConfigError('CAPTCHA_PROVIDER=development lets the token "pass" through: it is refused in production (NODE_ENV=production)')
    return { provider: DEVELOPMENT_CAPTCHA, secret: '', siteKey: DEVELOPMENT_CAPTCHA, verifyUrl: '', scriptUrl: undefined, ...risk }
  }
  if (!(CAPTCHA_PROVIDERS as readonly string[]).includes(provider)) throw new ConfigError(`CAPTCHA_PROVIDER must be one of ${[...CAPTCHA_PROVIDERS, DEVELOPMENT_CAPTCHA].join(', ')}, got "${provider}"`)
  const chosen = provider as CaptchaProvider
  const secret = read(env, 'CAPTCHA_SECRET')
  const siteKey = read(env, 'CAPTCHA_SITE_KEY')
  if (secret === undefined || siteKey === undefined) throw new ConfigError('CAPTCHA_SECRET and CAPTCHA_SITE_KEY are required with CAPTCHA_PROVIDER')
  return {
    provider: chosen,
    secret,
    siteKey,
    verifyUrl: url(env, 'CAPTCHA_VERIFY_URL', ['https:', 'http:']) ?? PROVIDER_DEFAULTS[chosen].verifyUrl,
    scriptUrl: url(env, 'CAPTCHA_SCRIPT_URL', ['https:', 'http:']) ?? PROVIDER_DEFAULTS[chosen].scriptUrl,
    ...risk,
  }
}

function breachedPasswordSource(env: Env): BreachedPasswordSource {
  const raw = read(env, 'BREACHED_PASSWORDS') ?? 'off'
  if (raw === 'off') return { kind: 'off' }
  if (raw === 'hibp') return { kind: 'hibp', url: (url(env, 'HIBP_RANGE_URL', ['https:', 'http:']) ?? 'https://api.pwnedpasswords.com').replace(/\/+$/, '') }
  if (raw.startsWith('file:') && raw.length > 'file:'.length) return { kind: 'file', path: raw.slice('file:'.length) }
  throw new ConfigError(`BREACHED_PASSWORDS must be off, hibp or file:PATH, got "${raw}"`)
}

export function abuseSettings(env: Env): AbuseSettings {
  return {
    captcha: captchaSettings(env),
    breachedPasswords: breachedPasswordSource(env),
    breachedPasswordsFail: oneOf(env, 'BREACHED_PASSWORDS_FAIL', ['open', 'closed'] as const, 'open'),
    blockDisposableEmails: boolean(env, 'BLOCK_DISPOSABLE_EMAILS', false),
  }
}
