// RFC 6238 time-based codes as authenticator apps make them: SHA-1, 30-second steps, 6 digits,
// one step of drift either way. A match names its time step, so the caller can refuse a code
// whose step was already used (no replay within its window).
import { Secret, TOTP } from 'otpauth'

const PERIOD_SECONDS = 30
const DIGITS = 6
const DRIFT_STEPS = 1
/** 160 bits, as RFC 4226 recommends. */
const SECRET_BYTES = 20

const totpOf = (secret: string, issuer = '', label = '') =>
  new TOTP({ issuer, label, algorithm: 'SHA1', digits: DIGITS, period: PERIOD_SECONDS, secret: Secret.fromBase32(secret) })

/** A new random secret, base32 as apps take it. */
export const newTotpSecret = (): string => new Secret({ size: SECRET_BYTES }).base32

/** The otpauth:// URL a QR code carries to an authenticator app. */
export const otpauthUrl = (secret: string, issuer: string, account: string): string => totpOf(secret, issuer, account).toString()

/**
 * The URL as a QR code, an SVG data URL for an <img>: made here, so no outside service ever sees
 * the secret. The encoder loads on first use.
 */
export async function qrCodeOf(url: string): Promise<string> {
  const { toString } = await import('qrcode')
  const svg = await toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`
}

/** The time step of `now` (milliseconds). */
export const stepAt = (now: number): number => Math.floor(now / 1000 / PERIOD_SECONDS)

/** The step whose code `code` is, within the drift window around `now`; undefined when it matches none. */
export function matchingStep(secret: string, code: string, now: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined
  const delta = totpOf(secret).validate({ token: code, timestamp: now, window: DRIFT_STEPS })
  return delta === null ? undefined : stepAt(now) + delta
}
