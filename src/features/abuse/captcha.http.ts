// Puts the CAPTCHA gate (captcha-gate.ts) in front of every door: each route that names a door in
// its config gets the token taken from X-Captcha-Token or the body's `captcha_token` (before the
// body's schema, which does not list it), the gate's check once the body is valid, and its
// failures and sign-ups counted towards risk before the answer goes out, so the client's next
// request meets them. The OpenAPI documents show the header and the 400 that carries the provider
// and site key.
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { errorResponses } from '../../api/common/responses.js'
import { bodyFieldsOf, changesSomething } from '../../api/common/route-shape.js'
import { DomainError } from '../../shared/errors.js'
import type { CaptchaGate } from './captcha-gate.js'
import type { Door } from './doors.js'
import { DOORS, PASSWORD_DOORS, subjectOf } from './doors.js'
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

/** Every route that takes requests without credentials says which door it is, and a door that checks a password names its account's field. */
function assertDoorDeclared(route: RouteOptions): void {
  const methods = [route.method].flat()
  const config = route.config ?? {}
  const changes = changesSomething(methods)
  // Anyone may send these: each is a door bots knock at (a CAPTCHA may guard it) or says it is none.
  if (!config.protectedRoute && changes && config.door === undefined) {
    throw new Error(`${methods.join(',')} ${route.url} takes requests without credentials and must declare its door (config.door: one of ${DOORS.join(', ')}, or 'exempt')`)
  }
  // A door that checks a password counts its guesses on the account its body names: it names that field.
  const bodyFields = bodyFieldsOf(route.schema?.body)
  if (config.door !== undefined && config.door !== 'exempt' && PASSWORD_DOORS.includes(config.door) && config.accountField === undefined) {
    throw new Error(`${methods.join(',')} ${route.url} checks a password (door '${config.door}') and must name the body field of its account (config.accountField)`)
  }
  if (config.accountField !== undefined && !bodyFields.includes(config.accountField)) {
    throw new Error(`${methods.join(',')} ${route.url} names ${config.accountField} as its account field, which its body does not have`)
  }
  if (!config.protectedRoute && changes && bodyFields.includes('password') && config.door !== 'signup' && (config.door === undefined || config.door === 'exempt' || !PASSWORD_DOORS.includes(config.door))) {
    throw new Error(`${methods.join(',')} ${route.url} takes a password from anyone: it is a door that checks one (config.door: 'login', with its accountField) or sets one ('signup')`)
  }
}

export default fp(async (app) => {
  const gate = app.services.captcha
  const { tokens, users } = app.services
  app.addHook('onRoute', (route) => {
    assertDoorDeclared(route)
    const door = route.config?.door
    if (door === undefined || door === 'exempt') return
    // The token is taken out of every door's body, and documented, whether or not a provider is set.
    route.preValidation = [takeToken, ...hooksOf(route.preValidation)]
    documented(route)
    if (!gate) return
    const accountField = route.config?.accountField
    route.preHandler = [guard(gate, door, accountField), ...hooksOf(route.preHandler)]
    if (door === 'login') route.onError = [...hooksOf(route.onError), failedLogin(gate, accountField)] as never
    if (door === 'signup') route.onSend = [...hooksOf(route.onSend), signedUp(gate)] as never
  })

  /**
   * The account a door's request names, by the body field its route declares: risk is counted on
   * the account, whichever of its names (username or email) the request used; on the name itself
   * when no account has it.
   */
  const accountNamed = async (request: FastifyRequest, accountField: string | undefined) => {
    const name = subjectOf(accountField, request.body)
    if (name === undefined) return { subject: undefined, account: undefined }
    const account = await users.findLoginAccount(name)
    return { subject: account ? `account:${account.identity}` : `name:${name}`, account }
  }

  /** Whether the request's device cookie is one the named account's browser was given. */
  const knownDevice = (request: FastifyRequest, account: { id: number } | undefined) => async () => {
    const cookie = clientOf(request).deviceToken
    if (cookie === undefined || account === undefined) return false
    const device = await tokens.verifyDevice(cookie)
    return device !== undefined && device.userId === account.id
  }

  const guard = (gate: CaptchaGate, door: Door, accountField: string | undefined): Hook => async (request) => {
    // A signed-in caller creating an account (a superuser, or USER_SIGNUP=authenticated) is no bot at the door.
    if (door === 'signup' && request.caller) return
    const { subject, account } = await accountNamed(request, accountField)
    await gate.check({ door, address: request.ip, subject, token: request.captchaToken, knownDevice: knownDevice(request, account) }, clientOf(request))
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
  const failedLogin = (gate: CaptchaGate, accountField: string | undefined) => async (request: FastifyRequest, _reply: FastifyReply, error: Error) => {
    if (error instanceof DomainError && error.code === 'invalid_credentials') {
      await counting(request, async () => gate.failed({ address: request.ip, subject: (await accountNamed(request, accountField)).subject }))
    }
  }
  const signedUp = (gate: CaptchaGate) => async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (reply.statusCode === 201) await counting(request, () => gate.signedUp(request.ip))
    return payload
  }
}, { name: 'captcha-doors' })
