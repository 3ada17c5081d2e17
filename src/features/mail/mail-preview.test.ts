// The development mail page's API: with MAIL_PREVIEW on (the development default) a superuser
// reads the outbox, each message's text and its links, and a link read there works; ordinary
// users and API keys are refused, and with MAIL_PREVIEW off (elsewhere) it answers 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, userFields, V2 } from '../../../test/helpers/users.js'
import { waitFor } from '../../../test/helpers/wait.js'

interface QueuedMailRead {
  to: string
  subject: string
  status: string
  attempts: number
  text: string
  links: string[]
}

describe('GET /api/v2/admin/mail with MAIL_PREVIEW=on', () => {
  let t: TestApp
  let admin: LoggedIn
  beforeAll(async () => {
    t = await createTestApp({ MAIL_PREVIEW: 'on', REQUIRE_VERIFIED_EMAIL: 'true', PUBLIC_URL: 'http://localhost:8000' })
    admin = await seedAndLogin(t.app, {}, { superuser: true })
  })
  afterAll(() => t.close())

  const listMail = () => t.app.inject({ url: `${V2}/admin/mail`, headers: admin.headers })

  it('lists the outbox, newest first, with each message text and links; a link read there works', async () => {
    const fields = userFields()
    expect((await t.app.inject({ method: 'POST', url: `${V2}/signup`, payload: { ...fields, accept_terms: true } })).statusCode).toBe(201)
    let mail: QueuedMailRead | undefined
    await waitFor(async () => {
      mail = ((await listMail()).json().data as QueuedMailRead[]).find((message) => message.to === fields.email)
      return mail?.status === 'sent'
    })
    expect(mail).toMatchObject({ attempts: 1, subject: 'Confirm your email address' })
    const link = mail?.links.find((candidate) => candidate.startsWith('http://localhost:8000/account/verify-email?token='))
    expect(link, JSON.stringify(mail)).toBeDefined()
    expect(mail?.text).toContain(link)
    const token = new URL(link ?? '').searchParams.get('token')
    const confirmed = await t.app.inject({ method: 'POST', url: `${V2}/email-verification/confirm`, payload: { token } })
    expect(confirmed.statusCode, confirmed.body).toBe(200)
  })

  it('is for superusers with a token only', async () => {
    const user = await seedAndLogin(t.app)
    expectError(await t.app.inject({ url: `${V2}/admin/mail`, headers: user.headers }), 403)
    expectError(await t.app.inject({ url: `${V2}/admin/mail` }), 401)
    const key = await t.app.inject({ method: 'POST', url: `${V2}/api-keys/`, payload: { name: 'mail', scopes: ['read'] }, headers: admin.headers })
    expectError(await t.app.inject({ url: `${V2}/admin/mail`, headers: { 'x-api-key': key.json().key } }), 403)
  })
})

describe('GET /api/v2/admin/mail with MAIL_PREVIEW off (the default outside development)', () => {
  it('answers 404 mail_preview_off, even to a superuser', async () => {
    const t = await createTestApp()
    try {
      const admin = await seedAndLogin(t.app, {}, { superuser: true })
      expectError(await t.app.inject({ url: `${V2}/admin/mail`, headers: admin.headers }), 404, 'Mail preview is off (MAIL_PREVIEW)', 'mail_preview_off')
    } finally {
      await t.close()
    }
  })
})
