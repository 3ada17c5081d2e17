// Access tokens other services can verify: signed with an asymmetric key (JWT_ALGORITHM, EdDSA by
// default; ES256 and RS256 too), published at /.well-known/jwks.json, verified by another process
// from that document alone (jose's createRemoteJWKSet, as docs/frontend.md shows); a key kept in the
// database is shared by every instance on it, and a rotation keeps the retired key published and
// accepted until its tokens expire. HS256 stays available. Forgeries (another key under the same
// kid, the public key used as an HMAC secret, alg none) are refused.
import { execFile } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { promisify } from 'node:util'

import type { JWK } from 'jose'
import { base64url, createLocalJWKSet, decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp, TEST_SECRET_KEY } from '../../../test/helpers/app.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { buildApp } from '../../app.js'
import { loadConfig } from '../../config.js'
import { createLogger } from '../../logger.js'
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from './tokens.js'

const run = promisify(execFile)
let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const jwksOf = async (app = t) => (await app.app.inject({ url: '/.well-known/jwks.json' })).json() as { keys: JWK[] }
const me = (app: TestApp, accessToken: string) => app.app.inject({ url: `${V2}/users/me`, headers: { authorization: `Bearer ${accessToken}` } })

describe('access tokens signed with an asymmetric key', () => {
  it('are EdDSA by default, their key published at /.well-known/jwks.json, and verify there alone', async () => {
    const who = await seedAndLogin(t.app)
    const header = decodeProtectedHeader(who.accessToken)
    expect(header).toMatchObject({ alg: 'EdDSA', typ: 'JWT', kid: expect.any(String) })
    const answer = await t.app.inject({ url: '/.well-known/jwks.json' })
    expect(answer.statusCode).toBe(200)
    expect(answer.headers['cache-control']).toBe('public, max-age=300')
    const { keys } = answer.json() as { keys: JWK[] }
    expect(keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: header.kid, alg: 'EdDSA', use: 'sig' }])
    const { payload } = await jwtVerify(who.accessToken, createLocalJWKSet({ keys }), { issuer: TOKEN_ISSUER, audience: TOKEN_AUDIENCE })
    expect(payload).toMatchObject({ sub: String(who.user.id), typ: 'access' })
    // Refresh tokens are the service's own business: still HS256 under SECRET_KEY.
    expect(decodeProtectedHeader(who.refreshToken).alg).toBe('HS256')
  })

  it('verify in another process that knows nothing but the JWKS address', async () => {
    const who = await seedAndLogin(t.app)
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 })
    const script = `
      import { createRemoteJWKSet, jwtVerify } from 'jose'
      const keys = createRemoteJWKSet(new URL(process.env.JWKS_URL))
      const { payload } = await jwtVerify(process.env.TOKEN, keys, { issuer: 'user-post-service', audience: 'user-post-service' })
      console.log(JSON.stringify({ sub: payload.sub }))`
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH ?? '', JWKS_URL: `${base}/.well-known/jwks.json`, TOKEN: who.accessToken }, cwd: process.cwd() })
    expect(JSON.parse(stdout.trim())).toEqual({ sub: String(who.user.id) })
  })

  it('share one key across instances on one database, and keep a rotated key until its tokens expire', async () => {
    const other = await buildApp({ config: loadConfig(t.env), secretKey: TEST_SECRET_KEY, prepare: false, logger: createLogger('silent') })
    try {
      const who = await seedAndLogin(t.app)
      expect((await other.inject({ url: `${V2}/users/me`, headers: who.headers })).statusCode).toBe(200)
      const before = decodeProtectedHeader(who.accessToken).kid
      const kid = await t.app.services.signingKeys!.rotate()
      expect(kid).not.toBe(before)
      const after = await seedAndLogin(t.app)
      expect(decodeProtectedHeader(after.accessToken).kid).toBe(kid)
      // The other instance learns the new key on its first token naming it, and both still take the old one.
      expect((await other.inject({ url: `${V2}/users/me`, headers: after.headers })).statusCode).toBe(200)
      expect((await me(t, who.accessToken)).statusCode).toBe(200)
      expect((await jwksOf()).keys.map((key) => key.kid).sort()).toEqual([before, kid].sort())
      // Once its tokens have expired, the retired key is dropped everywhere.
      await t.db.updateTable('signing_keys').set({ retired_at: new Date(Date.now() - 60 * 60_000).toISOString() }).where('kid', '=', before!).execute()
      await t.app.services.pruneExpiredState()
      await t.app.services.signingKeys!.rotate()
      expect((await jwksOf()).keys.map((key) => key.kid)).not.toContain(before)
    } finally {
      await other.close()
    }
  })

  it('keep the private key sealed under SECRET_KEY, and refuse a dropped key\'s tokens at once', async () => {
    const who = await seedAndLogin(t.app)
    expect((await me(t, who.accessToken)).statusCode).toBe(200)
    const rows = await t.db.selectFrom('signing_keys').select(['private_key', 'public_jwk']).execute()
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows) {
      expect(row.private_key).not.toMatch(/PRIVATE KEY|MC4CAQAw/)
      expect(JSON.parse(row.public_jwk)).not.toHaveProperty('d')
    }
    // A key that leaked: rotated with dropOthers, the tokens it signed (one verified before
    // included) stop working here at once.
    await t.app.services.signingKeys!.rotate({ dropOthers: true })
    expect((await me(t, who.accessToken)).statusCode).toBe(401)
    expect((await jwksOf()).keys.map((key) => key.kid)).not.toContain(decodeProtectedHeader(who.accessToken).kid)
  })

  it('refuse a token signed by another key under the same kid, an HMAC over the public key, and alg none', async () => {
    const who = await seedAndLogin(t.app)
    const { kid } = decodeProtectedHeader(who.accessToken)
    const claims = { typ: 'access', sid: 'x', sub: String(who.user.id), jti: 'j', iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE }
    const { privateKey } = await generateKeyPair('EdDSA')
    const foreign = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: kid! }).setIssuedAt().setExpirationTime('5m').sign(privateKey)
    expect((await me(t, foreign)).statusCode).toBe(401)
    const [publicJwk] = (await jwksOf()).keys
    const confused = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: kid! }).setIssuedAt().setExpirationTime('5m').sign(new TextEncoder().encode(JSON.stringify(publicJwk)))
    expect((await me(t, confused)).statusCode).toBe(401)
    const unsigned = `${base64url.encode(JSON.stringify({ alg: 'none', kid }))}.${base64url.encode(JSON.stringify({ ...claims, exp: Math.floor(Date.now() / 1000) + 300 }))}.`
    expect((await me(t, unsigned)).statusCode).toBe(401)
  })
})

describe('JWT_ALGORITHM and JWT_PRIVATE_KEY', () => {
  it.each(['ES256', 'RS256'] as const)('signs with %s when asked', async (algorithm) => {
    const app = await createTestApp({ JWT_ALGORITHM: algorithm })
    try {
      const who = await seedAndLogin(app.app)
      expect(decodeProtectedHeader(who.accessToken).alg).toBe(algorithm)
      const { keys } = await jwksOf(app)
      await jwtVerify(who.accessToken, createLocalJWKSet({ keys }), { issuer: TOKEN_ISSUER, audience: TOKEN_AUDIENCE })
      expect((await me(app, who.accessToken)).statusCode).toBe(200)
    } finally {
      await app.close()
    }
  })

  it('signs with a given key, publishing a previous one during a rotation', async () => {
    const pem = (type: 'ed25519') => generateKeyPairSync(type).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
    const [current, previous] = [pem('ed25519'), pem('ed25519')]
    const app = await createTestApp({ JWT_PRIVATE_KEY: current.replaceAll('\n', '\\n'), JWT_PRIVATE_KEY_PREVIOUS: previous })
    try {
      const who = await seedAndLogin(app.app)
      const { keys } = await jwksOf(app)
      expect(keys).toHaveLength(2)
      expect(keys[0]!.kid).toBe(decodeProtectedHeader(who.accessToken).kid)
      const expected = await exportJWK((await import('node:crypto')).createPublicKey(current))
      expect(keys[0]).toMatchObject({ x: expected.x })
      expect(await app.db.selectFrom('signing_keys').select('kid').execute()).toEqual([])
    } finally {
      await app.close()
    }
  })

  it('signs with SECRET_KEY under HS256, and publishes nothing', async () => {
    const app = await createTestApp({ JWT_ALGORITHM: 'HS256' })
    try {
      const who = await seedAndLogin(app.app)
      expect(decodeProtectedHeader(who.accessToken).alg).toBe('HS256')
      expect(await jwksOf(app)).toEqual({ keys: [] })
      expect((await me(app, who.accessToken)).statusCode).toBe(200)
    } finally {
      await app.close()
    }
  })
})
