// Puts the CAPTCHA gate (captcha-gate.ts) in front of every door: each route that names a door in
// its config gets the token taken from X-Captcha-Token or the body's `captcha_token` (before the
// body's schema, which does not list it), the gate's check once the body is valid, and, after the
// answer, its failures and sign-ups counted towards risk. The OpenAPI documents show the header
// and the 400 that carries the provider and site key.
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { errorResponses } from '../../api/common/responses.js'
import { DomainError } from '../../shared/errors.js'
import type { CaptchaGate } from './captcha-gate.js'
import type { Door } from './doors.js'
import { subjectOf } from './doors.js'
import { WIDGET_FIELDS } from './settings.js'

declare module 'fastify' {
  interface FastifyRequest {
    captchaToken?: string
  }
}

const TOKEN_HEADER = 'x-captcha-token'

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>
const hooksOf = (hooks: unknown): Hook[] => (hooks === undefined ? [] : ([hooks].flat() as Hook[]))

/** Takes the token out of the header or the body, so the body's own schema sees only its fields. */
async function takeToken(request: FastifyRequest): Promise<void> {
  const header = request.headers[TOKEN_HEADER]
  if (typeof header === 'string' && header !== '') request.captchaToken = header.slice(0, 4096)
  const body = request.body as Record<string, unknown> | undefined
  if (!body || typeof body !== 'object') return
  // The API's own field, or the one a provider's widget writes into a form (the service's sign-up page).
  for (const field of ['captcha_token', ...WIDGET_FIELDS]) {
    if (!(field in body)) continue
    const value = body[field]
    if (typeof value === 'string' && value !== '') request.captchaToken ??= value.slice(0, 4096)
    delete body[field]
  }
}

function documented(route: RouteOptions): void {
  const schema = (route.schema ??= {}) as { headers?: { properties?: Record<string, unknown> }; response?: Record<string, unknown> }
  schema.headers = Type.Object({
    ...(schema.headers?.properties ?? {}),
    [TOKEN_HEADER]: Type.Optional(Type.String({ maxLength: 4096, description: 'The CAPTCHA widget\'s token, when the service asked for one (400 `captcha_required`); or `captcha_token` in the body' })),
  }) as never
  schema.response = { ...errorResponses(400), ...(schema.response ?? {}) }
}

export default fp(async (app, options: { gate: CaptchaGate | undefined }) => {
  const { gate } = options
  const { tokens, users } = app.services
  app.addHook('onRoute', (route) => {
    const door = route.config?.door
    if (door === undefined || door === 'exempt') return
    // The token is taken out of every door's body, and documented, whether or not a provider is set.
    route.preValidation = [takeToken, ...hooksOf(route.preValidation)]
    documented(route)
    if (!gate) return
    route.preHandler = [guard(gate, door), ...hooksOf(route.preHandler)]
    if (door === 'login') route.onError = [...hooksOf(route.onError), failedLogin(gate)] as never
    if (door === 'signup') route.onResponse = [...hooksOf(route.onResponse), signedUp(gate)]
  })

  /** Whether the request's device cookie is one the named account's browser was given. */
  const knownDevice = (request: FastifyRequest, subject: string | undefined) => async () => {
    const cookie = clientOf(request).deviceToken
    if (cookie === undefined || subject === undefined) return false
    const [device, account] = await Promise.all([tokens.verifyDevice(cookie), users.findLoginAccount(subject)])
    return device !== undefined && account !== undefined && device.userId === account.id
  }

  const guard = (gate: CaptchaGate, door: Door): Hook => async (request) => {
    // A signed-in caller creating an account (a superuser, or USER_SIGNUP=authenticated) is no bot at the door.
    if (door === 'signup' && request.caller) return
    const subject = subjectOf(door, request.body)
    await gate.check({ door, address: request.ip, subject, token: request.captchaToken, knownDevice: knownDevice(request, subject) }, clientOf(request))
  }

  /** Risk counters are a signal, not the answer: one that cannot be written is logged and the request goes on. */
  const counting = async (request: FastifyRequest, count: () => Promise<void>) => {
    try {
      await count()
    } catch (error) {
      request.log.warn({ err: error }, 'the risk counters could not be updated')
    }
  }
  // A wrong password counts against the address and the account (a right one that needs its
  // second factor is refused with another code, and does not); a sign-up towards its network.
  const failedLogin = (gate: CaptchaGate) => async (request: FastifyRequest, _reply: FastifyReply, error: Error) => {
    if (error instanceof DomainError && error.code === 'invalid_credentials') {
      await counting(request, () => gate.failed({ address: request.ip, subject: subjectOf('login', request.body) }))
    }
  }
  const signedUp = (gate: CaptchaGate) => async (request: FastifyRequest, reply: FastifyReply) => {
    if (reply.statusCode === 201) await counting(request, () => gate.signedUp(request.ip))
  }
}, { name: 'captcha-doors' })
