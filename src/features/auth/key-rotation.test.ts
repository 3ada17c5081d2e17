// Rotating SECRET_KEY without logging everyone out: tokens name their key (kid); a restart with
// the new key and the old one in SECRET_KEY_PREVIOUS keeps old tokens working, and removing the
// old key ends them. Here access tokens are HS256 too (JWT_ALGORITHM=HS256); with an asymmetric
// signing key, which SECRET_KEY only seals, the key survives the rotation.
import { createSecretKey } from 'node:crypto'

import { decodeJwt,SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import { login, seedUser,V1, V2 } from '../../../test/helpers/users.js'
import { buildApp } from '../../app.js'
import { loadConfig } from '../../config.js'

const OLD_KEY = 'the-old-signing-key-that-is-long-enough-0001'
const NEW_KEY = 'the-new-signing-key-that-is-long-enough-0002'

describe('SECRET_KEY rotation', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp({ SECRET_KEY: OLD_KEY, JWT_ALGORITHM: 'HS256' })
  })
  afterAll(() => t.close())

  /** Another start of the service on the same database, with other keys. */
  async function restartWith(env: Record<string, string>) {
    const config = loadConfig({ ...t.env, ...env })
    return buildApp({ config, secretKey: config.secretKey ?? '', prepare: false })
  }

  it('keeps tokens signed with a previous key working, and ends them once the key is dropped', async () => {
    const user = await seedUser(t.app)
    const old = await login(t.app, user.username, user.password, V2)
    const header = JSON.parse(Buffer.from(old.accessToken.split('.')[0]!, 'base64url').toString())
    expect(header).toMatchObject({ alg: 'HS256', kid: expect.stringMatching(/^[0-9a-f]{16}$/) })

    const rotated = await restartWith({ SECRET_KEY: NEW_KEY, SECRET_KEY_PREVIOUS: OLD_KEY })
    try {
      expect((await rotated.inject({ url: `${V1}/users/me`, headers: { authorization: `Bearer ${old.accessToken}` } })).statusCode).toBe(200)
      const refreshed = await rotated.inject({ method: 'POST', url: `${V1}/refresh`, payload: { refresh_token: old.refreshToken } })
      expect(refreshed.statusCode).toBe(200)
      const fresh = refreshed.json().access_token as string
      expect(JSON.parse(Buffer.from(fresh.split('.')[0]!, 'base64url').toString()).kid).not.toBe(header.kid)

      const dropped = await restartWith({ SECRET_KEY: NEW_KEY })
      try {
        expectError(await dropped.inject({ url: `${V1}/users/me`, headers: { authorization: `Bearer ${old.accessToken}` } }), 401, 'Not authenticated')
        expect((await dropped.inject({ url: `${V1}/users/me`, headers: { authorization: `Bearer ${fresh}` } })).statusCode).toBe(200)
      } finally {
        await dropped.close()
      }
    } finally {
      await rotated.close()
    }
  })

  /** The same claims as `token`, signed with `secret` under the header given. */
  const resigned = (token: string, secret: string, header: { alg: 'HS256'; kid?: string }) =>
    new SignJWT(decodeJwt(token)).setProtectedHeader(header).sign(createSecretKey(Buffer.from(secret)))

  it('tries every key on a token from before key ids, and refuses a key id it does not know', async () => {
    const user = await seedUser(t.app)
    const { accessToken } = await login(t.app, user.username, user.password, V2)
    const withoutKeyId = await resigned(accessToken, OLD_KEY, { alg: 'HS256' })
    const unknownKeyId = await resigned(accessToken, NEW_KEY, { alg: 'HS256', kid: '0123456789abcdef' })
    const me = (app: Awaited<ReturnType<typeof restartWith>>, token: string) => app.inject({ url: `${V1}/users/me`, headers: { authorization: `Bearer ${token}` } })

    const rotated = await restartWith({ SECRET_KEY: NEW_KEY, SECRET_KEY_PREVIOUS: OLD_KEY })
    try {
      expect((await me(rotated, withoutKeyId)).statusCode).toBe(200)
      expectError(await me(rotated, unknownKeyId), 401, 'Not authenticated')
    } finally {
      await rotated.close()
    }
    const dropped = await restartWith({ SECRET_KEY: NEW_KEY })
    try {
      expectError(await me(dropped, withoutKeyId), 401, 'Not authenticated')
    } finally {
      await dropped.close()
    }
  })

  it('keeps the asymmetric signing key through the rotation: sealed again under the new SECRET_KEY, it outlives the old one', async () => {
    const asymmetric = await createTestApp({ SECRET_KEY: OLD_KEY })
    const restart = async (env: Record<string, string>) => {
      const config = loadConfig({ ...asymmetric.env, ...env })
      return buildApp({ config, secretKey: config.secretKey ?? '', prepare: false })
    }
    try {
      const user = await seedUser(asymmetric.app)
      const before = await login(asymmetric.app, user.username, user.password, V2)
      const rotated = await restart({ SECRET_KEY: NEW_KEY, SECRET_KEY_PREVIOUS: OLD_KEY })
      try {
        // The first signature under the new SECRET_KEY opens the key with the old one and seals it again.
        expect((await login(rotated, user.username, user.password, V2)).accessToken).toBeTruthy()
      } finally {
        await rotated.close()
      }
      const dropped = await restart({ SECRET_KEY: NEW_KEY })
      try {
        expect((await dropped.inject({ url: `${V1}/users/me`, headers: { authorization: `Bearer ${before.accessToken}` } })).statusCode).toBe(200)
        const after = await login(dropped, user.username, user.password, V2)
        expect(JSON.parse(Buffer.from(after.accessToken.split('.')[0]!, 'base64url').toString()).kid).toBe(JSON.parse(Buffer.from(before.accessToken.split('.')[0]!, 'base64url').toString()).kid)
      } finally {
        await dropped.close()
      }
    } finally {
      await asymmetric.close()
    }
  })
})
