// Browser apps on another origin (CORS_ORIGINS): preflights for every documented route of both
// versions, credentials for listed origins only, the headers a page needs exposed on every
// answer (errors and 429s included), and nothing for an origin that is not listed.
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp, createTestDatabase, TEST_ENV, TEST_SECRET_KEY } from '../helpers/app.js'
import { expectError } from '../helpers/expect.js'
import { seedAndLogin, seedUser, V1, V2 } from '../helpers/users.js'

const FRONTEND = 'http://localhost:5173'
const preflight = (t: TestApp, url: string, method: string, origin = FRONTEND) =>
  t.app.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type' } })

/** Every documented operation of both versions, with its placeholders filled in. */
async function documentedOperations(t: TestApp): Promise<{ method: string; url: string }[]> {
  const operations: { method: string; url: string }[] = []
  for (const prefix of [V1, V2]) {
    const document = (await t.app.inject({ url: `${prefix}/openapi.json` })).json() as { paths: Record<string, Record<string, unknown>> }
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const method of Object.keys(methods)) operations.push({ method: method.toUpperCase(), url: path.replace(/\{[^}]+\}/g, '1') })
    }
  }
  return operations
}

describe('CORS with the development default (http://localhost:* and http://127.0.0.1:*)', () => {
  let t: TestApp
  beforeAll(async () => {
    // A small anonymous budget, so the 429 below is met quickly (each test spends it from its own address).
    t = await createTestApp({ ANONYMOUS_RATE_LIMIT: '3/60' })
  })
  afterAll(() => t.close())

  it('answers the preflight of every documented route of both versions for a listed origin, with credentials', async () => {
    const operations = await documentedOperations(t)
    expect(operations.length).toBeGreaterThan(60)
    expect(operations.map((operation) => operation.url)).toEqual(expect.arrayContaining([`${V2}/signup`, `${V2}/password-reset`, `${V1}/login`]))
    for (const { method, url } of operations) {
      const response = await preflight(t, url, method)
      expect(response.statusCode, `${method} ${url}`).toBe(204)
      expect(response.headers['access-control-allow-origin'], `${method} ${url}`).toBe(FRONTEND)
      expect(response.headers['access-control-allow-credentials']).toBe('true')
      expect(String(response.headers['access-control-allow-methods']).split(/,\s*/)).toContain(method)
      expect(response.headers['access-control-allow-headers']).toBe('authorization,content-type')
    }
    const other = await preflight(t, `${V2}/users/me`, 'GET', 'http://127.0.0.1:3000')
    expect(other.headers['access-control-allow-origin']).toBe('http://127.0.0.1:3000')
  })

  it('gives an origin that is not listed no Access-Control-Allow-Origin, on preflights and answers', async () => {
    for (const origin of ['https://evil.example.net', 'http://localhost.evil.example.net:5173', 'https://localhost:5173', 'null']) {
      expect((await preflight(t, `${V2}/users/me`, 'GET', origin)).headers['access-control-allow-origin'], origin).toBeUndefined()
      const answer = await t.app.inject({ url: `${V2}/posts/`, headers: { origin }, remoteAddress: '198.51.100.7' })
      expect(answer.headers['access-control-allow-origin'], origin).toBeUndefined()
    }
  })

  it('lets a page read the limits, the request id and the error of every answer: 200, 401 and 429', async () => {
    const { headers } = await seedAndLogin(t.app)
    const ok = await t.app.inject({ url: `${V2}/users/me`, headers: { ...headers, origin: FRONTEND } })
    expect(ok.statusCode).toBe(200)
    expect(ok.headers['access-control-allow-origin']).toBe(FRONTEND)
    expect(ok.headers.vary).toContain('Origin')
    const exposed = String(ok.headers['access-control-expose-headers']).toLowerCase().split(', ')
    expect(exposed).toEqual(expect.arrayContaining(['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'x-request-id']))

    const unauthenticated = await t.app.inject({ url: `${V2}/users/me`, headers: { origin: FRONTEND, authorization: 'Bearer nonsense' }, remoteAddress: '198.51.100.8' })
    expectError(unauthenticated, 401)
    expect(unauthenticated.headers['access-control-allow-origin']).toBe(FRONTEND)

    let limited = unauthenticated
    for (let attempt = 0; attempt < 5 && limited.statusCode !== 429; attempt += 1) {
      limited = await t.app.inject({ url: `${V2}/posts/`, headers: { origin: FRONTEND }, remoteAddress: '203.0.113.9' })
    }
    expectError(limited, 429)
    expect(limited.headers['access-control-allow-origin']).toBe(FRONTEND)
    expect(limited.headers['retry-after']).toBeDefined()
  })

  it('counts no preflight against the anonymous budget (they are answered before the limits)', async () => {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect((await preflight(t, `${V2}/posts/`, 'GET')).statusCode).toBe(204)
    }
  })
})

describe('CORS settings', () => {
  it('production lists no origin by default: no preflight answer and no Access-Control-Allow-Origin', async () => {
    const t = await createTestApp({ NODE_ENV: 'production', MAIL_TRANSPORT: 'log' })
    try {
      const response = await preflight(t, `${V2}/users/me`, 'GET')
      expect(response.headers['access-control-allow-origin']).toBeUndefined()
      expect((await t.app.inject({ url: `${V2}/posts/`, headers: { origin: FRONTEND } })).headers['access-control-allow-origin']).toBeUndefined()
    } finally {
      await t.close()
    }
  })

  it('lists exact origins; * allows every origin without credentials', async () => {
    const listed = await createTestApp({ CORS_ORIGINS: 'https://app.example.com, https://admin.example.com' })
    try {
      expect((await preflight(listed, `${V2}/posts/`, 'POST', 'https://app.example.com')).headers['access-control-allow-origin']).toBe('https://app.example.com')
      expect((await preflight(listed, `${V2}/posts/`, 'POST', 'https://app.example.com:8443')).headers['access-control-allow-origin']).toBeUndefined()
      expect((await preflight(listed, `${V2}/posts/`, 'POST', FRONTEND)).headers['access-control-allow-origin']).toBeUndefined()
    } finally {
      await listed.close()
    }
    const any = await createTestApp({ CORS_ORIGINS: '*' })
    try {
      const response = await preflight(any, `${V2}/posts/`, 'POST', 'https://anywhere.example.org')
      expect(response.headers['access-control-allow-origin']).toBe('*')
      expect(response.headers['access-control-allow-credentials']).toBeUndefined()
      // `*` lists no origin for logins: any page could otherwise log its visitor in.
      const user = await seedUser(any.app)
      const login = await any.app.inject({
        method: 'POST',
        url: `${V2}/login`,
        payload: { username: user.username, password: user.password },
        headers: { origin: 'https://anywhere.example.org', 'sec-fetch-site': 'cross-site' },
      })
      expectError(login, 403, 'Cross-site request refused', 'cross_site_refused')
    } finally {
      await any.close()
    }
  })

  it('COOKIE_SAMESITE=none sends the refresh and device cookies SameSite=None and Secure, for a frontend on another site', async () => {
    const t = await createTestApp({ COOKIE_SAMESITE: 'none', COOKIE_SECURE: 'true', CORS_ORIGINS: 'https://app.example.com' })
    try {
      const user = await seedUser(t.app)
      const login = await t.app.inject({
        method: 'POST',
        url: `${V2}/login`,
        payload: { username: user.username, password: user.password },
        headers: { origin: 'https://app.example.com', 'sec-fetch-site': 'cross-site' },
      })
      expect(login.statusCode, login.body).toBe(200)
      for (const name of ['refresh_token', 'device']) {
        const cookie = login.cookies.find((candidate) => candidate.name === name)
        expect(cookie, name).toMatchObject({ sameSite: 'None', secure: true, httpOnly: true })
      }
      const logout = await t.app.inject({ method: 'POST', url: `${V2}/logout`, headers: { authorization: `Bearer ${login.json().access_token}` } })
      expect(logout.cookies.find((cookie) => cookie.name === 'refresh_token')).toMatchObject({ value: '', sameSite: 'None', secure: true })
    } finally {
      await t.close()
    }
  })
})

describe('an origin CORS_ORIGINS does not list', () => {
  it('is said once in the log, at warn, with the setting that would let it in', async () => {
    const lines: { level: number; msg: string; origin?: string; setting?: string }[] = []
    const database = await createTestDatabase()
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
    const app = await buildApp({ config: loadConfig({ ...TEST_ENV, ...database.env, CORS_ORIGINS: 'https://app.example.com' }), secretKey: TEST_SECRET_KEY, logger })
    try {
      for (let attempt = 0; attempt < 3; attempt++) await app.inject({ url: `${V2}/posts/`, headers: { origin: 'http://localhost:5199' } })
      await app.inject({ url: `${V2}/posts/`, headers: { origin: 'https://app.example.com' } })
      const warnings = lines.filter((line) => line.level === 40 && line.setting === 'CORS_ORIGINS')
      expect(warnings).toEqual([expect.objectContaining({ origin: 'http://localhost:5199', msg: expect.stringMatching(/CORS_ORIGINS does not list it/) })])
    } finally {
      await app.close()
      await database.drop()
    }
  })
})
