// Mail in the user's language, over HTTP and a real SMTP server: the locale comes from the
// sign-up body or the browser's Accept-Language (both versions), is kept canonical, changes in
// v2's profile (a malformed tag is 422), and every mail after follows it (an invitation, the invited
// account's, or the inviter's for an address not signed up); a superuser previews any
// template in any language, and gets the nearest one there is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { expectError, expectValidationError } from '../../../test/helpers/expect.js'
import type { TestSmtpServer } from '../../../test/helpers/smtp.js'
import { createAppWithSmtp } from '../../../test/helpers/smtp.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, userFields, V1, V2 } from '../../../test/helpers/users.js'

let smtp: TestSmtpServer
let t: TestApp
let close: () => Promise<void>
let admin: LoggedIn
beforeAll(async () => {
  ;({ smtp, t, close } = await createAppWithSmtp({ PUBLIC_URL: 'http://localhost:8000' }))
  admin = await seedAndLogin(t.app, {}, { superuser: true })
})
afterAll(() => close())

const signUp = (payload: object, headers: Record<string, string> = {}) => t.app.inject({ method: 'POST', url: `${V2}/signup`, payload: { ...payload, accept_terms: true }, headers })
const me = async (token: string) => (await t.app.inject({ url: `${V2}/users/me`, headers: { authorization: `Bearer ${token}` } })).json()

describe("mail in the user's language", () => {
  it("takes the sign-up's locale, else the browser's, and writes the verification mail in it", async () => {
    const german = userFields()
    const answer = await signUp(german, { 'accept-language': 'de-de, en;q=0.8, *;q=0.1' })
    expect(answer.statusCode, answer.body).toBe(201)
    expect(answer.json().locale).toBe('de-DE')
    const [mail] = await smtp.waitFor(german.email, 1)
    expect(mail!.subject).toBe('Bestätigen Sie Ihre E-Mail-Adresse')
    expect(mail!.text).toContain('24 Stunden lang gültig')
    expect(mail!.html).toContain('Meine E-Mail-Adresse bestätigen')

    const french = userFields()
    const said = await signUp({ ...french, locale: 'fr-ca' }, { 'accept-language': 'de' })
    expect(said.json().locale).toBe('fr-CA')
    expect((await smtp.waitFor(french.email, 1))[0]!.subject).toBe('Confirmez votre adresse e-mail')

    // Version 1's body is the specification's; the browser's language still counts.
    const v1 = userFields()
    expect((await t.app.inject({ method: 'POST', url: `${V1}/users/`, payload: v1, headers: { 'accept-language': 'es-MX;q=0.9, fr;q=0.5' } })).statusCode).toBe(201)
    expect((await smtp.waitFor(v1.email, 1))[0]!.subject).toBe('Confirma tu dirección de correo')

    // No usable language: the default.
    const plain = userFields()
    expect((await signUp(plain, { 'accept-language': '*, xx-!!' })).json().locale).toBeNull()
    expect((await smtp.waitFor(plain.email, 1))[0]!.subject).toBe('Confirm your email address')
    expectValidationError(await signUp({ ...userFields(), locale: 'not a tag' }), ['body', 'locale'])
  })

  it("changes with the v2 profile, and the next mail follows it; the user's own read shows it, others' do not", async () => {
    const who = await seedAndLogin(t.app)
    expect((await me(who.accessToken)).locale).toBeNull()
    const changed = await t.app.inject({ method: 'PATCH', url: `${V2}/users/${who.user.id}`, payload: { locale: 'es' }, headers: who.headers })
    expect(changed.statusCode, changed.body).toBe(200)
    expect(changed.json().locale).toBe('es')
    expect((await t.app.inject({ method: 'POST', url: `${V2}/password-reset`, payload: { email: who.user.email } })).statusCode).toBe(202)
    const [reset] = await smtp.waitFor(who.user.email, 1)
    expect(reset!.subject).toBe('Restablece tu contraseña')
    expect(reset!.text).toContain('caduca en 1 hora')

    const other = await seedAndLogin(t.app, { username: `${who.user.username}o`, email: `o${who.user.email}` })
    expect((await t.app.inject({ url: `${V2}/users/${who.user.id}`, headers: other.headers })).json().locale).toBeUndefined()

    expectValidationError(await t.app.inject({ method: 'PATCH', url: `${V2}/users/${who.user.id}`, payload: { locale: 'en_US' }, headers: who.headers }), ['body', 'locale'])
    // Well-formed to the pattern, not to BCP 47 (a subtag of nine letters).
    const malformed = await t.app.inject({ method: 'PATCH', url: `${V2}/users/${who.user.id}`, payload: { locale: 'en-abcdefghi' }, headers: who.headers })
    expectError(malformed, 422, /BCP 47/, 'validation_failed')
    expect(malformed.json().errors[0].loc).toEqual(['body', 'locale'])
    const cleared = await t.app.inject({ method: 'PATCH', url: `${V2}/users/${who.user.id}`, payload: { locale: null }, headers: who.headers })
    expect(cleared.json().locale).toBeNull()
  })

  it("writes an invitation in the invited account's language, and to an address not signed up in the inviter's", async () => {
    const inviter = await seedAndLogin(t.app)
    await t.app.inject({ method: 'PATCH', url: `${V2}/users/${inviter.user.id}`, payload: { locale: 'fr' }, headers: inviter.headers })
    const invited = await seedAndLogin(t.app, { username: `${inviter.user.username}i`, email: `i${inviter.user.email}` })
    await t.app.inject({ method: 'PATCH', url: `${V2}/users/${invited.user.id}`, payload: { locale: 'de-AT' }, headers: invited.headers })
    const org = (await t.app.inject({ method: 'POST', url: `${V2}/orgs`, payload: { name: 'Polyglot Club' }, headers: inviter.headers })).json()
    const invite = (email: string) => t.app.inject({ method: 'POST', url: `${V2}/orgs/${org.id}/invitations`, payload: { email, role: 'member' }, headers: inviter.headers })

    expect((await invite(invited.user.email)).statusCode).toBe(201)
    expect((await smtp.waitFor(invited.user.email, 1))[0]!.subject).toBe(`${inviter.user.name} hat Sie zu Polyglot Club eingeladen`)
    const stranger = `nobody-${inviter.user.email}`
    expect((await invite(stranger)).statusCode).toBe(201)
    expect((await smtp.waitFor(stranger, 1))[0]!.subject).toBe(`${inviter.user.name} vous invite à rejoindre Polyglot Club`)
  })

  it('previews any template in any language for superusers, with the fallback a recipient gets', async () => {
    const preview = (name: string, locale?: string, who: LoggedIn = admin) =>
      t.app.inject({ url: `${V2}/admin/mail-templates/${name}/preview${locale ? `?locale=${locale}` : ''}`, headers: who.headers })
    const listed = (await t.app.inject({ url: `${V2}/admin/mail-templates`, headers: admin.headers })).json()
    expect(listed.locales).toEqual(['en', 'de', 'es', 'fr'])
    expect(listed.templates).toContain('data-export-ready')
    for (const name of listed.templates as string[]) {
      for (const locale of ['de', 'fr', 'es', 'en']) {
        const answer = await preview(name, locale)
        expect(answer.statusCode, `${name} ${locale}`).toBe(200)
        expect(answer.json()).toMatchObject({ name, locale })
        expect(answer.json().html).not.toMatch(/\{\$/)
      }
    }
    expect((await preview('new-device-sign-in', 'de-AT')).json()).toMatchObject({ locale: 'de', subject: 'Neue Anmeldung bei Ihrem Konto' })
    expect((await preview('new-device-sign-in', 'pt-BR')).json()).toMatchObject({ locale: 'en', subject: 'New sign-in to your account' })
    expect((await preview('new-device-sign-in')).json().locale).toBe('en')
    expectError(await preview('no-such-mail', 'de'), 404, undefined, 'mail_template_not_found')
    expectValidationError(await preview('verify-email', 'de_DE'), ['query', 'locale'])
    const someone = await seedAndLogin(t.app)
    expectError(await preview('verify-email', 'de', someone), 403)
  })
})
