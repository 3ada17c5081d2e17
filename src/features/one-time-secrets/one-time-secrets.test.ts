// The one store for single-use secrets, for every kind the features declare (so a kind added
// next year is covered without a line here): stored only as a hash, spent exactly once however
// many requests race for it, dead once expired, pruned, bound where a binding is given, and a
// guessed code or a second-factor step tried no more than the kind's limit. And no other table
// keeps secrets to spend once: a new one would be a second place to fix.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { seedUser } from '../../../test/helpers/users.js'
import { migrateTo, migrateToLatest } from '../../db/migrate.js'
import { hashedKey } from '../../shared/hashed-key.js'
import type { SecretKind } from './one-time-secrets.service.js'

let t: TestApp
let userId: number
beforeAll(async () => {
  t = await createTestApp()
  userId = (await seedUser(t.app)).id
})
afterAll(() => t.close())

const kinds = () => t.app.services.oneTimeSecrets.declared()
const kind = (purpose: string) => kinds().find((candidate) => candidate.purpose === purpose)!
const rowOf = (kind: SecretKind<unknown>) => t.db.selectFrom('one_time_secrets').selectAll().where('purpose', '=', kind.purpose).orderBy('created_at', 'desc')
const expire = (kind: SecretKind<unknown>) => t.db.updateTable('one_time_secrets').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('purpose', '=', kind.purpose).execute()

describe('one-time secrets', () => {
  it('are declared by every feature that hands one out, each purpose once', () => {
    const purposes = kinds().map((kind) => kind.purpose)
    expect(new Set(purposes).size).toBe(purposes.length)
    for (const purpose of ['verify_email', 'reset_password', 'undo_email_change', 'email_login', 'provider_flow', 'sign_in_code', 'provider_link', 'mfa', 'webauthn_sign_in', 'stream_ticket', 'reauthentication_code']) {
      expect(purposes).toContain(purpose)
    }
    expect(() => t.app.services.oneTimeSecrets.kind('mfa', { seconds: 1 })).toThrow(/declared twice/)
  })

  it('are kept only as hashes, and spent by exactly one of many concurrent requests, for every kind', async () => {
    for (const kind of kinds()) {
      const { token, code } = await kind.issue({ userId, data: { probe: kind.purpose }, code: true })
      const row = await rowOf(kind).executeTakeFirstOrThrow()
      expect(JSON.stringify(row), kind.purpose).not.toContain(token)
      expect(JSON.stringify(row), kind.purpose).not.toContain(`"${code}"`)
      expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/)
      const spends = await Promise.all(Array.from({ length: 8 }, () => kind.spend(token)))
      const won = spends.filter((spent) => spent !== undefined)
      expect(won, kind.purpose).toHaveLength(1)
      expect(won[0]).toMatchObject({ userId, data: { probe: kind.purpose } })
      expect(await kind.spend(token), kind.purpose).toBeUndefined()
    }
  })

  it('die when they expire, and are pruned then, for every kind', async () => {
    for (const kind of kinds()) {
      const { token, code } = await kind.issue({ userId, data: null, code: true })
      await expire(kind)
      expect(await kind.peek(token), kind.purpose).toBeUndefined()
      expect(await kind.attempt(token), kind.purpose).toBeUndefined()
      expect(await kind.spendCode(userId, code!), kind.purpose).toBeUndefined()
      expect(await kind.spend(token), kind.purpose).toBeUndefined()
    }
    await t.app.services.oneTimeSecrets.prune()
    const left = await t.db.selectFrom('one_time_secrets').select('purpose').where('expires_at', '<', new Date().toISOString()).execute()
    expect(left).toEqual([])
  })

  it('give a typed code no more guesses than its kind allows, even all at once, for every kind', async () => {
    for (const kind of kinds()) {
      const { code } = await kind.issue({ userId, data: null, code: true })
      const wrong = code === '000000' ? '111111' : '000000'
      const guesses = await Promise.all(Array.from({ length: 12 }, () => kind.spendCode(userId, wrong)))
      expect(guesses.every((guess) => guess === undefined), kind.purpose).toBe(true)
      const row = await rowOf(kind).where('used_at', 'is', null).executeTakeFirstOrThrow()
      expect(Number(row.attempts), kind.purpose).toBe(kind.maxAttempts)
      // Exhausted: the right code no longer works.
      expect(await kind.spendCode(userId, code!), kind.purpose).toBeUndefined()
      await kind.retire(userId)
    }
  })

  it('take one attempt per second-factor step, up to the limit, and spend an attempted secret once', async () => {
    for (const kind of kinds()) {
      const { token } = await kind.issue({ userId, data: null })
      const attempts = await Promise.all(Array.from({ length: 12 }, () => kind.attempt(token)))
      const taken = attempts.filter((attempt) => attempt !== undefined)
      expect(taken, kind.purpose).toHaveLength(kind.maxAttempts)
      const spent = await Promise.all([kind.spendAttempted(taken[0]!.handle), kind.spendAttempted(taken[0]!.handle)])
      expect(spent.filter(Boolean), kind.purpose).toHaveLength(1)
    }
  })

  it('spend a bound secret only for a request presenting its binding, leaving it for its holder otherwise', async () => {
    for (const kind of kinds()) {
      const { token } = await kind.issue({ userId, data: null, binding: 'browser:right' })
      expect(await kind.spend(token), kind.purpose).toBeUndefined()
      expect(await kind.spend(token, { bindings: ['browser:wrong'] }), kind.purpose).toBeUndefined()
      expect(await kind.spend(token, { bindings: ['pkce:other', 'browser:right'] }), kind.purpose).toBeDefined()
    }
  })

  it('are the only secrets kept to be spent once: no other table has both an expiry and a use mark', async () => {
    // refresh_tokens rotate (a used one within its grace window is reuse, which ends the family):
    // a session's credential, not a one-time secret.
    const sessionsOwn = new Set(['one_time_secrets', 'refresh_tokens'])
    const tables = await t.db.introspection.getTables()
    const spendOnce = tables.filter((table) => {
      const columns = new Set(table.columns.map((column) => column.name))
      return columns.has('expires_at') && columns.has('used_at') && !sessionsOwn.has(table.name)
    })
    expect(spendOnce.map((table) => table.name)).toEqual([])
  })

  it('keep the live secrets of the tables they replaced across the upgrade (a link mailed before it still works)', async () => {
    expect((await migrateTo(t.db, '2026-11-26-02-signing-keys')).error).toBeUndefined()
    const later = new Date(Date.now() + 600_000).toISOString()
    const earlier = new Date(Date.now() - 1000).toISOString()
    const old = (table: string, row: Record<string, unknown>) => sql`insert into ${sql.table(table)} (${sql.join(Object.keys(row).map((column) => sql.ref(column)))}) values (${sql.join(Object.values(row))})`.execute(t.db)
    await old('user_tokens', { token_hash: hashedKey('mailed-link'), user_id: userId, purpose: 'verify_email', email: 'old@example.com', expires_at: later })
    await old('user_tokens', { token_hash: hashedKey('expired-link'), user_id: userId, purpose: 'verify_email', email: 'old@example.com', expires_at: earlier })
    await old('user_tokens', { token_hash: hashedKey('used-link'), user_id: userId, purpose: 'reset_password', email: 'old@example.com', expires_at: later, used_at: earlier })
    await old('sign_in_codes', { code_hash: hashedKey('hand-off'), user_id: userId, method: 'oidc:corp', code_challenge: 'the-challenge', expires_at: later })
    await old('mfa_challenges', { token_hash: hashedKey('mfa-token'), user_id: userId, method: 'password', attempts: 3, expires_at: later })
    await old('webauthn_challenges', { challenge_hash: hashedKey('webauthn-challenge'), purpose: 'second_factor', user_id: userId, mfa_token_hash: hashedKey('mfa-token'), expires_at: later })
    await old('stream_tickets', { ticket_hash: hashedKey('ticket'), user_id: userId, jti: 'the-jti', session_id: 'the-session', token_expires_at: 1_900_000_000_000, expires_at: later })
    await migrateToLatest(t.db)

    expect(await kind('verify_email').spend('mailed-link')).toMatchObject({ userId, data: { email: 'old@example.com' } })
    expect(await kind('verify_email').spend('expired-link')).toBeUndefined()
    expect(await kind('reset_password').spend('used-link')).toBeUndefined()
    expect(await kind('sign_in_code').spend('hand-off', { bindings: ['browser:x'] })).toBeUndefined()
    expect(await kind('sign_in_code').spend('hand-off', { bindings: ['pkce:the-challenge'] })).toMatchObject({ userId, data: { method: 'oidc:corp' } })
    // The attempts already taken count: two are left of five.
    const attempts = await Promise.all([1, 2, 3].map(() => kind('mfa').attempt('mfa-token')))
    expect(attempts.filter(Boolean)).toHaveLength(2)
    expect(attempts.find(Boolean)).toMatchObject({ userId, data: { method: 'password' }, handle: hashedKey('mfa-token') })
    expect(await kind('webauthn_second_factor').spend('webauthn-challenge')).toMatchObject({ userId, data: { mfaTokenHash: hashedKey('mfa-token') } })
    expect(await kind('stream_ticket').spend('ticket')).toMatchObject({ userId, data: { jti: 'the-jti', sessionId: 'the-session', tokenExpiresAt: 1_900_000_000_000 } })
  })
})
