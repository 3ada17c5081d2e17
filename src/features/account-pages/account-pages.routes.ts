// The pages that mailed links open when no frontend is configured (VERIFY_EMAIL_URL,
// RESET_PASSWORD_URL, EMAIL_LOGIN_URL, DATA_EXPORT_DOWNLOAD_URL …): a form that POSTs the token
// back, so that a mail scanner following the link consumes nothing. Plain HTML, no script, a
// strict CSP.
import { readFile } from 'node:fs/promises'
import path from 'node:path'

import cookie from '@fastify/cookie'
import formbody from '@fastify/formbody'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { DomainError, RuleViolation } from '../../shared/errors.js'
import { escapeHtml } from '../../shared/escape-html.js'
import { projectPath } from '../../shared/project-files.js'
import { DEVELOPMENT_CAPTCHA, DEVELOPMENT_CAPTCHA_TOKEN, WIDGET_CLASS } from '../abuse/index.js'
import type { BrowserSession } from '../auth/index.js'
import { refuseCrossSiteLogins, tokenReplies } from '../auth/index.js'
import { sendExportZip } from '../data-export/index.js'
import { signUpRoute } from '../sign-up/index.js'
import { Password } from '../users/index.js'

/**
 * The pages' CSP; a form may also post on to `formTargets` (the sign-in page's redirect_to, reached
 * by a 303). A page with a CAPTCHA widget loads its script, frame and calls from `widgetOrigin` only.
 */
const pagePolicy = (formTargets: string[] = [], widgetOrigin?: string) =>
  `default-src 'none'; style-src 'unsafe-inline'; ${widgetOrigin ? `script-src ${widgetOrigin}; frame-src ${widgetOrigin}; connect-src ${widgetOrigin}; ` : ''}` +
  `form-action ${["'self'", ...formTargets].join(' ')}; frame-ancestors 'none'; base-uri 'none'`
const TokenQuery = Type.Object({ token: Type.Optional(Type.String({ maxLength: 200 })) })

function page(reply: FastifyReply, status: number, title: string, body: string, formTargets: string[] = [], widgetOrigin?: string) {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', pagePolicy(formTargets, widgetOrigin))
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}` +
        `input,button{font-size:1rem;padding:.5rem;margin:.25rem 0}</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
    )
}

/**
 * The outcome of a form POST: a page saying what happened, in words the API would use. A value
 * the rules refuse (a common password) shows `formAgain`, so the person tries another at once.
 */
async function outcome(reply: FastifyReply, title: string, done: string, action: () => Promise<void>, formAgain = '') {
  try {
    await action()
    return page(reply, 200, title, `<p>${escapeHtml(done)}</p>`)
  } catch (error) {
    if (error instanceof RuleViolation) return page(reply, 422, title, `<p role="alert">${escapeHtml(error.message)}. Try another.</p>${formAgain}`)
    if (error instanceof DomainError && (error.kind === 'invalid' || error.kind === 'conflict')) {
      return page(reply, error.kind === 'conflict' ? 409 : 400, title, `<p>${escapeHtml(error.message)}</p>`)
    }
    throw error
  }
}

const accountPages: FastifyPluginAsyncTypebox = async (app) => {
  const { account } = app.services
  await app.register(formbody, { bodyLimit: 16 * 1024 })

  /** A form that POSTs the mailed token back to the same path (absolute: a trailing slash changes nothing). */
  const form = (name: string, token: string, fields: string) =>
    `<form method="post" action="${app.prefix}/${name}"><input type="hidden" name="token" value="${escapeHtml(token)}">${fields}</form>`
  const formPage = (name: string, title: string, fields: string) =>
    app.get(`/${name}`, { schema: { hide: true, querystring: TokenQuery } }, async (request, reply) => page(reply, 200, title, form(name, request.query.token ?? '', fields)))
  const TokenBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) })

  formPage('verify-email', 'Confirm your email address', '<button type="submit">Confirm my email address</button>')

  app.post(
    '/verify-email',
    { config: { door: 'exempt' }, schema: { hide: true, body: TokenBody } },
    async (request, reply) =>
      outcome(reply, 'Confirm your email address', 'Your email address is verified.', () => account.confirmEmail(request.body.token, clientOf(request))),
  )

  formPage('undo-email-change', 'Undo the change of your email address', '<button type="submit">Put my email address back and sign out everywhere</button>')

  app.post(
    '/undo-email-change',
    { config: { door: 'exempt' }, schema: { hide: true, body: TokenBody } },
    async (request, reply) =>
      outcome(reply, 'Undo the change of your email address', 'Your email address is back, and every session is signed out. Reset your password before you log in again.', () =>
        account.undoEmailChange(request.body.token, clientOf(request)),
      ),
  )

  formPage('cancel-deletion', 'Keep your account', '<p>Your account is waiting to be deleted. Keep it, with everything in it?</p><button type="submit">Keep my account</button>')

  app.post(
    '/cancel-deletion',
    { config: { door: 'exempt' }, schema: { hide: true, body: TokenBody } },
    async (request, reply) =>
      outcome(reply, 'Keep your account', 'Your account is kept. Sign in again; if you did not ask for its deletion, reset your password.', () =>
        app.services.accountDeletion.cancel({ token: request.body.token }, clientOf(request)),
      ),
  )

  formPage('not-me', "This wasn't me", '<p>Sign out the device in the alert, and every other, and get a link to choose a new password?</p><button type="submit">Sign everything out</button>')

  app.post(
    '/not-me',
    { config: { door: 'exempt' }, schema: { hide: true, body: TokenBody } },
    async (request, reply) =>
      outcome(reply, "This wasn't me", 'Every session is signed out. A link to choose a new password is on its way to your mailbox.', () =>
        app.services.deviceAlerts.notMe(request.body.token, clientOf(request)),
      ),
  )

  // The mailed link to a data export (DATA_EXPORT_DOWNLOAD_URL unset): the button's POST answers the ZIP itself.
  const exportTitle = 'Download your data'
  formPage('data-export', exportTitle, '<p>The copy of your data you asked for is ready: a ZIP of everything your account holds. This link downloads it once.</p><button type="submit">Download the ZIP</button>')

  app.post('/data-export', { config: { door: 'exempt' }, schema: { hide: true, body: TokenBody } }, async (request, reply) => {
    try {
      return sendExportZip(reply, await app.services.dataExports.download(request.body.token, clientOf(request)))
    } catch (error) {
      if (!(error instanceof DomainError) || (error.kind !== 'invalid' && error.kind !== 'not_found')) throw error
      return page(reply, error.kind === 'invalid' ? 400 : 404, exportTitle, '<p>This link no longer works: it was used, or it or the export expired. Ask for a new link from your account.</p>')
    }
  })

  const resetTitle = 'Choose a new password'
  /**
   * The new password, and every way into the account with a box to keep it: a reset ends the
   * passkeys and sign-in providers left unticked (whoever had the account may have added them).
   */
  const resetFields = async (token: string) => {
    const ways = await account.waysInForReset(token).catch(() => undefined)
    const choice = (name: string, id: string, label: string) =>
      `<br><label><input type="checkbox" name="${name}" value="${escapeHtml(id)}"> ${escapeHtml(label)}</label>`
    const choices = ways
      ? [
          ...ways.passkeys.map((passkey) => choice('keep_passkey', passkey.id, `Passkey "${passkey.name}", added ${passkey.createdAt.slice(0, 10)}`)),
          ...ways.identities.map((identity) => choice('keep_identity', identity.id, `Sign-in with ${identity.provider}${identity.email ? ` (${identity.email})` : ''}, linked ${identity.createdAt.slice(0, 10)}`)),
        ]
      : []
    const keep = choices.length === 0 ? '' : `<fieldset><legend>Keep only the ways in you recognise; the others end</legend>${choices.join('')}</fieldset>`
    return (
      '<label>New password <input type="password" name="new_password" minlength="8" maxlength="128" required autocomplete="new-password"></label>' +
      `${keep}<p>Resetting signs out every session and ends every API key.</p><button type="submit">Set my new password</button>`
    )
  }
  app.get('/reset-password', { schema: { hide: true, querystring: TokenQuery } }, async (request, reply) => {
    const token = request.query.token ?? ''
    return page(reply, 200, resetTitle, form('reset-password', token, await resetFields(token)))
  })

  const Kept = Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 })]))
  const listOf = (value: string | string[] | undefined) => (value === undefined ? [] : [value].flat())
  app.post(
    '/reset-password',
    { config: { door: 'exempt' }, schema: { hide: true, body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), new_password: Password, keep_passkey: Kept, keep_identity: Kept }) } },
    async (request, reply) => {
      const { token, new_password: password, keep_passkey: passkeys, keep_identity: identities } = request.body
      return outcome(
        reply,
        resetTitle,
        'Your password is changed, every session is signed out, and the ways in you did not keep are ended. Log in with the new password.',
        async () => {
          await account.confirmPasswordReset(token, password, clientOf(request), { passkeys: listOf(passkeys), identities: listOf(identities) })
        },
        form('reset-password', token, await resetFields(token)),
      )
    },
  )

  // An invitation to an organization (INVITATION_URL unset): what it is and how to accept it. It
  // accepts nothing itself: only the invited account, signed in to the app, does.
  app.get('/invitation', { schema: { hide: true, querystring: TokenQuery } }, async (request, reply) => {
    const invitation = request.query.token ? await app.services.orgs.describeInvitation(request.query.token) : undefined
    if (!invitation) return page(reply, 400, 'Invitation', '<p>This invitation link no longer works: it was used, replaced, revoked or has expired. Ask for a new one.</p>')
    return page(
      reply,
      200,
      `Join ${invitation.orgName}`,
      `<p>You were invited to join <strong>${escapeHtml(invitation.orgName)}</strong> as ${escapeHtml(invitation.role)}.</p>` +
        `<p>Sign in (or sign up) as ${escapeHtml(invitation.email)} in the app that invited you, and verify the address if you have not: the invitation is then waiting under your pending invitations.</p>` +
        form('invitation/verification', request.query.token ?? '', `<p>Not verified yet? Get a link to verify ${escapeHtml(invitation.email)}.</p><button type="submit">Send me a verification link</button>`),
    )
  })

  // The invitee's page asks for a verification link for the invited address: mailed to that
  // address only, to its unverified account, within the verification-mail limits; one answer
  // for every address. The invitation's token is read, never spent.
  app.post('/invitation/verification', { config: { door: 'exempt' }, schema: { hide: true, body: TokenBody } }, async (request, reply) => {
    const invitation = await app.services.orgs.describeInvitation(request.body.token)
    if (!invitation) return page(reply, 400, 'Invitation', '<p>This invitation link no longer works: it was used, replaced, revoked or has expired. Ask for a new one.</p>')
    await account.requestVerificationOfAddress(invitation.email)
    return page(reply, 200, `Join ${invitation.orgName}`, `<p>If an account uses ${escapeHtml(invitation.email)} and it is not verified yet, a link to verify it is on its way. Follow it, then accept the invitation in the app.</p>`)
  })

  if (app.config.emailLogin.enabled) await emailLoginPage(app)
  securityPage(app)
  // Only where anyone may sign up: with USER_SIGNUP=authenticated a form without a session has nothing to offer.
  if (app.config.userSignup === 'open') await signUpPage(app)
}

const SECURITY_PAGE_DIR = projectPath('account-pages')
const securityPagePolicy = "default-src 'none'; script-src 'self'; connect-src 'self'; img-src data:; style-src 'unsafe-inline'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

/**
 * The account security page: sign in with a password and a second factor, or a passkey; manage
 * passkeys and the authenticator app. Its script calls the v2 API on this origin; the files are
 * read at the first request.
 */
function securityPage(app: Parameters<FastifyPluginAsyncTypebox>[0]) {
  const files = new Map<string, Promise<string>>()
  const read = (name: string) => {
    let file = files.get(name)
    if (!file) files.set(name, (file = readFile(path.join(SECURITY_PAGE_DIR, name), 'utf8')))
    return file
  }
  const serve = (name: string, type: string) => async (_request: unknown, reply: FastifyReply) =>
    reply.type(type).header('content-security-policy', securityPagePolicy).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').send(await read(name))
  app.get('/security', { schema: { hide: true } }, serve('security.html', 'text/html; charset=utf-8'))
  app.get('/security.js', { schema: { hide: true } }, serve('security.js', 'text/javascript; charset=utf-8'))
}

/**
 * The sign-in link's page: its button POSTs the token, which signs the browser in (the refresh
 * and device cookies, as a login sets them), then goes on to `redirect_to` when AUTH_REDIRECT_ORIGINS
 * lists its origin, where the frontend's client picks the session up from the cookie.
 */
async function emailLoginPage(app: Parameters<FastifyPluginAsyncTypebox>[0]) {
  const { emailLogin, auth } = app.services
  const { sendSession } = tokenReplies(app)
  await app.register(cookie)
  const title = 'Sign in'
  const Query = Type.Object({ token: Type.Optional(Type.String({ maxLength: 200 })), redirect_to: Type.Optional(Type.String({ maxLength: 2048 })) })
  const Body = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), redirect_to: Type.Optional(Type.String({ maxLength: 2048 })) })
  const allowed = (redirectTo: string | undefined) => (redirectTo === undefined ? undefined : emailLogin.allowedRedirect(redirectTo))

  app.get('/email-login', { schema: { hide: true, querystring: Query } }, async (request, reply) => {
    const redirect = allowed(request.query.redirect_to)
    const fields =
      `<input type="hidden" name="token" value="${escapeHtml(request.query.token ?? '')}">` +
      (redirect ? `<input type="hidden" name="redirect_to" value="${escapeHtml(redirect)}">` : '') +
      '<button type="submit">Sign me in</button>'
    const formTargets = redirect ? [new URL(redirect).origin] : []
    return page(reply, 200, title, `<form method="post" action="${app.prefix}/email-login">${fields}</form>`, formTargets)
  })

  /** The session's cookies, then on to redirect_to (303) when it is allowed. */
  const signedInPage = (reply: FastifyReply, signedIn: BrowserSession, redirectTo: string | undefined) => {
    sendSession(reply, signedIn)
    const redirect = allowed(redirectTo)
    if (redirect) return reply.code(303).header('location', redirect).send()
    return page(reply, 200, title, '<p>You are signed in.</p>')
  }
  /** The second step, when the account has a second factor: a code from the app or a recovery code. */
  const codeForm = (mfaToken: string, redirectTo: string | undefined, notice = '') => {
    const redirect = allowed(redirectTo)
    const fields =
      `<input type="hidden" name="mfa_token" value="${escapeHtml(mfaToken)}">` +
      (redirect ? `<input type="hidden" name="redirect_to" value="${escapeHtml(redirect)}">` : '') +
      '<label>Code from your authenticator app, or a recovery code <input name="code" required autocomplete="one-time-code" maxlength="64"></label>' +
      '<br><button type="submit">Continue</button>'
    return { body: `${notice}<form method="post" action="${app.prefix}/email-login/mfa">${fields}</form>`, formTargets: redirect ? [new URL(redirect).origin] : [] }
  }

  app.post('/email-login', { config: { door: 'exempt' }, onRequest: refuseCrossSiteLogins(app), schema: { hide: true, body: Body } }, async (request, reply) => {
    try {
      return signedInPage(reply, await emailLogin.confirmToken(request.body.token, clientOf(request)), request.body.redirect_to)
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'invalid') return page(reply, 400, title, `<p>${escapeHtml(error.message)}. Ask for a new link.</p>`)
      if (error instanceof DomainError && error.code === 'mfa_required') {
        // A passkey cannot be asked for by a plain form: the security page signs in with it (a complete sign-in).
        const methods = (error.fields?.methods ?? []) as string[]
        if (!methods.includes('totp')) {
          return page(reply, 200, title, `<p>This account's second factor is a passkey. <a href="${app.prefix}/security">Sign in with your passkey</a>.</p>`)
        }
        const form = codeForm(String(error.fields?.mfa_token), request.body.redirect_to)
        return page(reply, 200, title, form.body, form.formTargets)
      }
      throw error
    }
  })

  const CodeBody = Type.Object({ mfa_token: Type.String({ minLength: 1, maxLength: 128 }), code: Type.String({ minLength: 1, maxLength: 64 }), redirect_to: Type.Optional(Type.String({ maxLength: 2048 })) })
  app.post('/email-login/mfa', { config: { door: 'exempt' }, onRequest: refuseCrossSiteLogins(app), schema: { hide: true, body: CodeBody } }, async (request, reply) => {
    const { mfa_token, redirect_to } = request.body
    const code = request.body.code.trim()
    const proof = /^\d{6}$/.test(code) ? { code } : { recoveryCode: code }
    try {
      return signedInPage(reply, await auth.completeSecondFactor(mfa_token, proof, clientOf(request)), redirect_to)
    } catch (error) {
      if (error instanceof DomainError && error.code === 'invalid_mfa_code') {
        const form = codeForm(mfa_token, redirect_to, `<p role="alert">${escapeHtml(error.message)}. Try again.</p>`)
        return page(reply, 401, title, form.body, form.formTargets)
      }
      if (error instanceof DomainError && error.kind === 'unauthenticated') return page(reply, 401, title, `<p>${escapeHtml(error.message)}. Ask for a new link.</p>`)
      throw error
    }
  })

}

/**
 * The service's own sign-up page: a plain form, and the CAPTCHA widget when a provider is set (the
 * widget puts its token in the form; the door's gate checks it when it asks for one).
 */
async function signUpPage(app: Parameters<FastifyPluginAsyncTypebox>[0]) {
  const { account } = app.services

  const captcha = app.config.abuse.captcha
  const widgetOrigin = captcha?.scriptUrl ? new URL(captcha.scriptUrl).origin : undefined
  const widget = !captcha
    ? ''
    : captcha.provider === DEVELOPMENT_CAPTCHA || !captcha.scriptUrl
      ? `<label><input name="captcha_token" type="checkbox" value="${DEVELOPMENT_CAPTCHA_TOKEN}" required> I am not a robot (the development CAPTCHA)</label><br>`
      : `<script src="${escapeHtml(captcha.scriptUrl)}" async defer></script><div class="${WIDGET_CLASS[captcha.provider]}" data-sitekey="${escapeHtml(captcha.siteKey)}"></div>`
  const signUpTitle = 'Create your account'
  const signUpForm =
    `<form method="post" action="${app.prefix}/signup">` +
    '<label>Name <input name="name" required maxlength="100" autocomplete="name"></label><br>' +
    '<label>Username <input name="username" required maxlength="50" autocomplete="username"></label><br>' +
    '<label>Email <input name="email" type="email" required maxlength="254" autocomplete="email"></label><br>' +
    '<label>Password <input name="password" type="password" required minlength="8" maxlength="128" autocomplete="new-password"></label><br>' +
    '<label><input name="accept_terms" type="checkbox" required> I accept the terms of service</label><br>' +
    `${widget}<button type="submit">Create my account</button></form>`
  app.get('/signup', { schema: { hide: true } }, async (_request, reply) => page(reply, 200, signUpTitle, signUpForm, [], widgetOrigin))
  const signUp = signUpRoute(app, app.config.userSignup, {
    hide: true,
    body: Type.Object({ name: Type.String(), username: Type.String(), email: Type.String(), password: Type.String(), accept_terms: Type.Literal('on') }),
    response: {},
  })
  app.post('/signup', { ...signUp, onRequest: [refuseCrossSiteLogins(app), signUp.onRequest] }, async (request, reply) => {
    const { accept_terms: _accepted, ...input } = request.body
    return outcome(reply, signUpTitle, 'Your account is created. We sent a link to your email address to verify it.', async () => {
      await account.signUp(input, clientOf(request), { logIn: false })
    }, signUpForm)
  })
}

export default accountPages
