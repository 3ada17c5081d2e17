// Each refusal of abuse protection is a metrics counter: CAPTCHAs asked for, passed and failed by
// door, breached passwords refused, addresses refused for their domain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { LocalVerifier } from '../../../test/helpers/captcha-verifier.js'
import { startCaptchaVerifier, TEST_SECRET } from '../../../test/helpers/captcha-verifier.js'
import type { RangeServer } from '../../../test/helpers/hibp.js'
import { startRangeServer } from '../../../test/helpers/hibp.js'
import { userFields, V2 } from '../../../test/helpers/users.js'
import type { MetricsServer } from '../../metrics-server.js'
import { registrySource, startMetricsServer } from '../../metrics-server.js'

describe('abuse protection in the metrics', () => {
  let t: TestApp
  let verifier: LocalVerifier
  let range: RangeServer
  let server: MetricsServer
  beforeAll(async () => {
    verifier = await startCaptchaVerifier()
    range = await startRangeServer({ 'correct horse battery staple': 10 })
    t = await createTestApp({
      METRICS_PORT: '0',
      CAPTCHA_PROVIDER: 'hcaptcha',
      CAPTCHA_SECRET: TEST_SECRET,
      CAPTCHA_SITE_KEY: 'site',
      CAPTCHA_VERIFY_URL: verifier.url,
      CAPTCHA_MODE: 'always',
      BREACHED_PASSWORDS: 'hibp',
      HIBP_RANGE_URL: range.url,
      BLOCK_DISPOSABLE_EMAILS: 'true',
    })
    server = await startMetricsServer(registrySource(t.app.metrics!), '127.0.0.1', 0)
  })
  afterAll(async () => {
    await server.close()
    await t.close()
    await range.close()
    await verifier.close()
  })

  it('counts CAPTCHAs by outcome and door, breached passwords and blocked domains', async () => {
    let token = 0
    const signUp = (fields: Record<string, unknown>, captcha?: string) =>
      t.app.inject({ method: 'POST', url: `${V2}/signup`, headers: captcha ? { 'x-captcha-token': captcha } : {}, payload: { ...userFields(), ...fields, accept_terms: true } })
    expect((await signUp({})).json().code).toBe('captcha_required')
    expect((await signUp({}, 'fail-metrics')).json().code).toBe('captcha_failed')
    expect((await signUp({ password: 'correct horse battery staple' }, `pass-m${++token}`)).json().code).toBe('password_breached')
    expect((await signUp({ email: 'bot@mailinator.com' }, `pass-m${++token}`)).json().code).toBe('email_domain_blocked')
    const text = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text()
    expect(text).toContain('captcha_checks_total{outcome="asked",door="signup"} 1')
    expect(text).toContain('captcha_checks_total{outcome="failed",door="signup"} 1')
    expect(text).toContain('captcha_checks_total{outcome="passed",door="signup"} 2')
    expect(text).toContain('breached_passwords_refused_total 1')
    expect(text).toContain('email_domains_blocked_total 1')
  })
})
