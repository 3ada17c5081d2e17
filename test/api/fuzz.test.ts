// Property-based abuse: random and malformed methods, paths, ids, query strings, bodies,
// content types and tokens against every documented endpoint of both versions. Whatever
// arrives, the answer is never a 5xx, every error carries a `detail` string and a documented
// `code`, and no answer ever holds a password or a password hash.
import http from 'node:http'

import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { ERROR_CODES } from '../../src/features/index.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'
import { login, seedUser,V1 } from '../helpers/users.js'

const SECRET_PASSWORD = 'fuzz-secret-password-42'
// FUZZ_RUNS=30000 for a longer hunt; FUZZ_SEED replays the seed a failure printed.
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000)
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED)

let t: TestApp
let base: string
let routes: { method: string; path: string; stream: boolean }[]
let tokens: string[]

beforeAll(async () => {
  t = await createTestApp({ LOGIN_RATE_LIMIT: '1000000' })
  const user = await seedUser(t.app, { password: SECRET_PASSWORD })
  const admin = await seedUser(t.app, { password: SECRET_PASSWORD }, { superuser: true })
  tokens = [(await login(t.app, user.username, SECRET_PASSWORD)).accessToken, (await login(t.app, admin.username, SECRET_PASSWORD)).accessToken]
  // Streams (text/event-stream) never end on their own: they are fuzzed over a real socket, and let go once they answer.
  base = await t.app.listen({ host: '127.0.0.1', port: 0 })
  routes = []
  for (const prefix of ['/services/v1', '/api/v2']) {
    const document = (await t.app.inject({ url: `${prefix}/openapi.json` })).json() as { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>> }
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        routes.push({ method: method.toUpperCase(), path, stream: operation.responses?.['200']?.content?.['text/event-stream'] !== undefined })
      }
    }
  }
})
afterAll(() => t.close())

const printable = fc.string({ unit: fc.constantFrom(...' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~') })
const pathValue = fc.oneof(
  fc.integer().map(String),
  fc.constantFrom('0', '-1', '1e3', '0x10', '2147483648', '99999999999999999999', ' 1', '1.5', 'me', 'null', '..', '%00', '%2F', 'ïd'),
  printable.map((value) => encodeURIComponent(value)),
)
const queryString = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom('page', 'items_per_page', 'limit', 'search', 'name', 'age', 'is_active', 'author_id'), printable), fc.oneof(printable, fc.integer().map(String), fc.constant(''))), { maxLength: 5 })
  .map((pairs) => new URLSearchParams(pairs).toString())
const body = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.dictionary(fc.oneof(fc.constantFrom('name', 'username', 'email', 'password', 'title', 'text', 'is_superuser', 'accept_terms', 'refresh_token', '__proto__', 'constructor'), printable), fc.jsonValue()).map((value) => JSON.stringify(value)),
  printable,
  fc.constant('{"name":'),
  fc.constant('x'.repeat(2 * 1024 * 1024)),
)
const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzz',
  'multipart/form-data',
  'text/plain',
  'application/xml',
  'image/png',
)
const authorization = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Bearer a.b.c', 'bearer eyJhbGciOiJub25lIn0.e30.'),
  printable.map((value) => `Bearer ${value}`),
  fc.nat(1).map((index) => `Bearer ${tokens[index]}`),
)
interface Answer {
  statusCode: number
  body: string
  contentType: string | undefined
}

/** A GET that may open a stream, over a connection of its own: its status and, for an error, its body; the stream itself is let go. */
function streamAnswer(url: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${base}${url}`, { headers, agent: false }, (response) => {
      const answer = (body: string) => resolve({ statusCode: response.statusCode ?? 0, body, contentType: response.headers['content-type'] })
      if (response.statusCode === 200) {
        request.destroy()
        return answer('')
      }
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('end', () => answer(body))
    })
    request.on('error', reject)
  })
}

const request = fc.record({
  route: fc.nat(),
  method: fc.option(fc.constantFrom('GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS', 'HEAD'), { nil: undefined }),
  ids: fc.array(pathValue, { minLength: 2, maxLength: 2 }),
  query: queryString,
  body,
  contentType,
  authorization,
})

describe('fuzzing every endpoint', () => {
  it('never answers 5xx, always explains errors, never leaks a password', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (input) => {
        const route = routes[input.route % routes.length] as { method: string; path: string; stream: boolean }
        let index = 0
        const path = route.path.replace(/\{[^}]+\}/g, () => input.ids[index++ % 2] ?? '1')
        const headers: Record<string, string> = {}
        if (input.contentType) headers['content-type'] = input.contentType
        if (input.authorization) headers.authorization = input.authorization
        const method = (input.method ?? route.method) as 'GET'
        const url = `${path}${input.query ? `?${input.query}` : ''}`
        let response: Answer
        if (route.stream && method === 'GET') response = await streamAnswer(url, headers)
        else {
          const injected = await t.app.inject({ method, url, headers, ...(input.body === undefined ? {} : { payload: input.body }) })
          response = { statusCode: injected.statusCode, body: injected.body, contentType: injected.headers['content-type']?.toString() }
        }
        expect(response.statusCode, `${route.method} ${path}: ${response.body.slice(0, 300)}`).toBeLessThan(500)
        expect(response.body).not.toContain(SECRET_PASSWORD)
        expect(response.body).not.toContain('$argon2')
        // (HEAD answers carry the headers of the GET, with no body to read.)
        if (response.statusCode >= 400 && response.body !== '' && response.contentType?.startsWith('application/json')) {
          const body = JSON.parse(response.body) as { detail?: unknown; code?: unknown }
          expect(typeof body.detail).toBe('string')
          expect(Object.keys(ERROR_CODES)).toContain(body.code)
        }
      }),
      { numRuns: RUNS, seed: SEED },
    )
  })

  it('still serves normally afterwards', async () => {
    expect((await t.app.inject({ url: `${V1}/users/` })).statusCode).toBe(200)
    expect((await t.app.inject({ url: '/ready' })).statusCode).toBe(200)
  })
})
