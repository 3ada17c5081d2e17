// The CAPTCHA's risk rule, on fakes of its store and verifier and no server: when a door asks,
// what counts as a failure, and that counts end with their window. The HTTP contract (headers,
// 400 bodies, every door, both databases) is captcha.test.ts's. A unit test: it runs once.
import { describe, expect, it } from 'vitest'

import { DomainError } from '../../shared/errors.js'
import type { SecurityEventService } from '../security-events/index.js'
import type { DoorRequest } from './captcha-gate.js'
import { CaptchaGate } from './captcha-gate.js'
import type { CaptchaVerifier } from './captcha-verifier.js'
import type { RiskCounters } from './risk.js'
import { RiskSignals } from './risk.js'
import type { CaptchaSettings } from './settings.js'

/** The limiter's windowed counters in memory, on a clock the test moves. */
class FakeCounters implements RiskCounters {
  now = 0
  private readonly windows = new Map<string, { count: number; endsAt: number }>()

  async hit(key: string, windowMs: number, cost: number): Promise<{ count: number }> {
    const live = this.live(key) ?? { count: 0, endsAt: this.now + windowMs }
    live.count += cost
    this.windows.set(key, live)
    return { count: live.count }
  }

  async peek(key: string): Promise<number> {
    return this.live(key)?.count ?? 0
  }

  private live(key: string) {
    const window = this.windows.get(key)
    return window && window.endsAt > this.now ? window : undefined
  }
}

const SETTINGS: CaptchaSettings = {
  provider: 'turnstile',
  secret: 'secret',
  siteKey: 'site-key',
  verifyUrl: 'http://127.0.0.1:9/verify',
  scriptUrl: undefined,
  mode: 'adaptive',
  windowSeconds: 600,
  failureThreshold: 3,
  signupThreshold: 2,
  timeoutMs: 1000,
}

function gateWith(settings: Partial<CaptchaSettings> = {}, verdict: Awaited<ReturnType<CaptchaVerifier['verify']>> = 'passed') {
  const counters = new FakeCounters()
  const recorded: string[] = []
  const securityEvents = { record: async (type: string) => void recorded.push(type) } as unknown as SecurityEventService
  const verifier: CaptchaVerifier = { verify: async () => verdict }
  const gate = new CaptchaGate({ settings: { ...SETTINGS, ...settings }, verifier, risk: new RiskSignals(counters, SETTINGS.windowSeconds, (address) => address), securityEvents })
  return { gate, counters, recorded }
}

const request = (door: DoorRequest['door'], options: { address?: string; subject?: string; token?: string; knownDevice?: boolean } = {}): DoorRequest => ({
  door,
  address: options.address ?? '203.0.113.7',
  subject: options.subject,
  token: options.token,
  knownDevice: async () => options.knownDevice ?? false,
})
const client = { ip: '203.0.113.7', userAgent: null }
const codeOf = (promise: Promise<unknown>) => promise.then(() => 'passed', (error: unknown) => (error instanceof DomainError ? error.code : String(error)))

describe('the CAPTCHA gate', () => {
  it('asks on every door with CAPTCHA_MODE=always, and lets a solved token through', async () => {
    const { gate } = gateWith({ mode: 'always' })
    expect(await codeOf(gate.check(request('password-reset'), client))).toBe('captcha_required')
    expect(await codeOf(gate.check(request('password-reset', { token: 'solved' }), client))).toBe('passed')
  })

  it('asks once an address or an account reaches the failure threshold, and not before', async () => {
    const { gate } = gateWith()
    for (let failure = 0; failure < SETTINGS.failureThreshold - 1; failure++) await gate.failed({ address: '203.0.113.7', subject: 'ada' })
    expect(await gate.required(request('login', { subject: 'grace', address: '198.51.100.1' }))).toBe(false)
    await gate.failed({ address: '203.0.113.7', subject: 'ada' })
    expect(await gate.required(request('email-login'))).toBe(true)
    // The account's failures ask from any address, even from a browser that knows it.
    expect(await gate.required(request('login', { subject: 'ada', address: '198.51.100.1', knownDevice: true }))).toBe(true)
  })

  it('spares the browsers an account knows while someone guesses on it from elsewhere', async () => {
    const { gate } = gateWith()
    await gate.failed({ address: '198.51.100.9', subject: 'ada' })
    expect(await gate.required(request('login', { subject: 'ada', knownDevice: true }))).toBe(false)
    expect(await gate.required(request('login', { subject: 'ada', knownDevice: false }))).toBe(true)
    // Only a login names an account's device: a reset request is not asked for one failure.
    expect(await gate.required(request('password-reset', { subject: 'ada' }))).toBe(false)
  })

  it("asks the next sign-up once its network has signed up the threshold's worth, on the sign-up door only", async () => {
    const { gate } = gateWith()
    await gate.signedUp('203.0.113.7')
    await gate.signedUp('203.0.113.200')
    expect(await gate.required(request('signup', { address: '203.0.113.55' }))).toBe(true)
    expect(await gate.required(request('signup', { address: '198.51.100.55' }))).toBe(false)
    expect(await gate.required(request('login', { address: '203.0.113.55' }))).toBe(false)
  })

  it('counts a refused token as a failure, in the security log, and a verifier that is away as neither', async () => {
    const refused = gateWith({ mode: 'always' }, 'failed')
    expect(await codeOf(refused.gate.check(request('login', { subject: 'ada', token: 'forged' }), client))).toBe('captcha_failed')
    expect(refused.recorded).toEqual(['captcha_failed'])
    expect(await refused.gate.required({ ...request('login', { subject: 'ada' }), door: 'email-login' })).toBe(true)
    const away = gateWith({ mode: 'always' }, 'unavailable')
    expect(await codeOf(away.gate.check(request('login', { subject: 'ada', token: 'solved' }), client))).toBe('service_unavailable')
    expect(away.recorded).toEqual([])
  })

  it('forgets failures and sign-ups once their window has passed', async () => {
    const { gate, counters } = gateWith()
    for (let failure = 0; failure < SETTINGS.failureThreshold; failure++) await gate.failed({ address: '203.0.113.7', subject: undefined })
    expect(await gate.required(request('invitation'))).toBe(true)
    counters.now += SETTINGS.windowSeconds * 1000
    expect(await gate.required(request('invitation'))).toBe(false)
  })
})
