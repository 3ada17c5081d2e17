// Read replicas against the run's real hot standby (scripts/test-services.sh): replay is paused
// to freeze the replica's state exactly, never waited out. A writer reads what it wrote on the
// very next request; a revocation, a ban or a revoked key holds at once; a replica too far
// behind, down, or without this code's schema is not read from, and nothing fails for it.
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'

import { createDatabase } from '../../src/db/database.js'
import { latestMigration } from '../../src/db/migrate.js'
import { ReplicaSet } from '../../src/db/replicas/replica-set.js'
import { RequestReads, runWithReads } from '../../src/db/replicas/request-reads.js'
import { MemoryWalPositions } from '../../src/db/replicas/wal-positions.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp, dialect } from '../helpers/app.js'
import { caughtUp, freezeReplicaOf, pauseReplay, replicaUrlOf, resumeReplay } from '../helpers/replica.js'
import type { LoggedIn } from '../helpers/users.js'
import { seedAndLogin, userFields, V2 } from '../helpers/users.js'
import { waitFor } from '../helpers/wait.js'

const withReplica = (maxLagMs: number) => (database: Record<string, string>) => ({ DATABASE_REPLICA_URLS: replicaUrlOf(database.DATABASE_URL!), DATABASE_REPLICA_MAX_LAG_MS: String(maxLagMs) })

describe.runIf(dialect() === 'postgres' && inject('replicaUrl') !== '')('read replicas (a real hot standby)', () => {
  // Whatever a test does, replay runs again after it: other files' databases come through it.
  afterEach(() => resumeReplay())

  describe('a replica that keeps up (lag allowed: 10 minutes)', () => {
    let t: TestApp
    let writer: LoggedIn
    let other: LoggedIn
    beforeAll(async () => {
      t = await createTestApp(withReplica(600_000), undefined, { replicated: true })
      writer = await seedAndLogin(t.app)
      other = await seedAndLogin(t.app)
    })
    afterAll(() => t?.close())

    const read = (url: string, headers: Record<string, string> = {}) => t.app.inject({ url, headers })

    it("a writer reads its own writes at once, on every session; other callers read the frozen replica's state until it replays them", async () => {
      await caughtUp()
      await freezeReplicaOf(t.app)
      const created = await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: writer.headers, payload: { title: 'Written while the replica is paused', text: 'fresh' } })
      expect(created.statusCode, created.body).toBe(201)
      const id = created.json().id as number

      expect((await read(`${V2}/posts/${id}`, writer.headers)).statusCode).toBe(200)
      expect((await read(`${V2}/posts?author_id=${writer.user.id}`, writer.headers)).json().data.map((post: { id: number }) => post.id)).toEqual([id])
      // The replica was read: it has not replayed the post, so nobody else sees it yet.
      expect((await read(`${V2}/posts/${id}`)).statusCode).toBe(404)
      expect((await read(`${V2}/posts/${id}`, other.headers)).statusCode).toBe(404)
      expect((await read(`${V2}/posts?author_id=${writer.user.id}`)).json().data).toEqual([])

      const edited = await t.app.inject({ method: 'PATCH', url: `${V2}/posts/${id}`, headers: writer.headers, payload: { title: 'Edited while paused' } })
      expect(edited.statusCode, edited.body).toBe(200)
      expect((await read(`${V2}/posts/${id}`, writer.headers)).json().title).toBe('Edited while paused')
      // The same user on a new session (a login is a write of its own) reads it too.
      const login = await t.app.inject({ method: 'POST', url: `${V2}/login`, payload: { username: writer.user.username, password: writer.user.password } })
      expect(login.statusCode).toBe(200)
      expect((await read(`${V2}/posts/${id}`, { authorization: `Bearer ${login.json().access_token}` })).json().title).toBe('Edited while paused')

      await resumeReplay()
      await waitFor(async () => (await read(`${V2}/posts/${id}`)).statusCode === 200)
      expect((await read(`${V2}/posts/${id}`, other.headers)).json().title).toBe('Edited while paused')
    })

    it('a sign-up reads its own account on its first request, though the replica has not replayed it', async () => {
      await caughtUp()
      await pauseReplay()
      const fields = userFields()
      const signUp = await t.app.inject({ method: 'POST', url: `${V2}/signup`, payload: { ...fields, accept_terms: true } })
      expect(signUp.statusCode, signUp.body).toBe(201)
      const headers = { authorization: `Bearer ${signUp.json().tokens.access_token}` }
      expect((await read(`${V2}/users/me`, headers)).json()).toMatchObject({ username: fields.username })
      expect((await read(`${V2}/users/${signUp.json().id}`, headers)).statusCode).toBe(200)
      expect((await read(`${V2}/users/${signUp.json().id}`)).statusCode).toBe(404)
    })

    it('a logout, a ban and a revoked API key hold on the very next request, whatever the replica has replayed', async () => {
      const admin = await seedAndLogin(t.app, {}, { superuser: true })
      const leaving = await seedAndLogin(t.app)
      const banned = await seedAndLogin(t.app)
      const keyed = await seedAndLogin(t.app)
      const key = await t.app.inject({ method: 'POST', url: `${V2}/api-keys/`, headers: keyed.headers, payload: { name: 'bot', scopes: ['read'] } })
      expect(key.statusCode, key.body).toBe(201)
      await caughtUp()
      await pauseReplay()

      expect((await t.app.inject({ method: 'POST', url: `${V2}/logout`, headers: leaving.headers })).statusCode).toBeLessThan(300)
      expect((await read(`${V2}/users/me`, leaving.headers)).statusCode).toBe(401)

      const ban = await t.app.inject({ method: 'POST', url: `${V2}/admin/users/${banned.user.id}/ban`, headers: admin.headers, payload: { reason: 'spam' } })
      expect(ban.statusCode, ban.body).toBe(200)
      const refused = await read(`${V2}/users/me`, banned.headers)
      expect(refused.statusCode, refused.body).toBe(403)

      expect((await read(`${V2}/users/me`, { 'x-api-key': key.json().key })).statusCode).toBe(200)
      expect((await t.app.inject({ method: 'DELETE', url: `${V2}/api-keys/${key.json().id}`, headers: keyed.headers })).statusCode).toBe(200)
      expect((await read(`${V2}/users/me`, { 'x-api-key': key.json().key })).statusCode).toBe(401)
    })
  })

  it('reports where replica-safe reads ran, the fallbacks and each replica\'s lag as metrics', async () => {
    const t = await createTestApp((database) => ({ ...withReplica(600_000)(database), METRICS_PORT: '0' }), undefined, { replicated: true })
    try {
      const writer = await seedAndLogin(t.app)
      const created = await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: writer.headers, payload: { title: 'Counted', text: '…' } })
      expect(created.statusCode).toBe(201)
      await caughtUp()
      await waitFor(() => (t.app.replicas?.stats()[0]?.lagMs ?? Number.POSITIVE_INFINITY) < Number.POSITIVE_INFINITY)
      expect((await t.app.inject({ url: `${V2}/posts/${created.json().id}` })).statusCode).toBe(200)
      const text = await t.app.metrics!.metrics()
      expect(Number(/^db_replica_safe_reads_total\{target="replica-1"\} (\d+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(1)
      expect(text).toMatch(/^db_replica_safe_reads_total\{target="primary"\} \d+$/m)
      expect(text).toMatch(/^db_replica_fallbacks_total \d+$/m)
      expect(text).toMatch(/^db_replica_lag_seconds\{replica="replica-1"\} [\d.e-]+$/m)
    } finally {
      await t.close()
    }
  })

  it('a replica further behind than DATABASE_REPLICA_MAX_LAG_MS is skipped: everyone reads the primary until it catches up', async () => {
    const t = await createTestApp(withReplica(300), undefined, { replicated: true })
    try {
      const writer = await seedAndLogin(t.app)
      await caughtUp()
      await pauseReplay()
      const created = await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: writer.headers, payload: { title: 'Behind', text: 'lag' } })
      expect(created.statusCode).toBe(201)
      // Still paused: the replica falls more than 300 ms behind, and anonymous reads go to the primary.
      await waitFor(async () => (await t.app.inject({ url: `${V2}/posts/${created.json().id}` })).statusCode === 200)
    } finally {
      await t.close()
    }
  })

  it('a replica that does not answer: reads run on the primary, without an error, and /ready stays 200', async () => {
    const t = await createTestApp({ DATABASE_REPLICA_URLS: 'postgres://postgres@127.0.0.1:9/nowhere' }, undefined, { replicated: true })
    try {
      const writer = await seedAndLogin(t.app)
      const created = await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: writer.headers, payload: { title: 'Primary only', text: '…' } })
      expect(created.statusCode).toBe(201)
      expect((await t.app.inject({ url: `${V2}/posts/${created.json().id}` })).statusCode).toBe(200)
      expect((await t.app.inject({ url: `${V2}/posts?author_id=${writer.user.id}` })).json().data).toHaveLength(1)
      expect((await t.app.inject({ url: '/ready' })).statusCode).toBe(200)
    } finally {
      await t.close()
    }
  })

  it("a replica that has not replayed the schema this code needs is not read from, and is once it has; a read that fails on it runs again on the primary", async () => {
    const t = await createTestApp({}, undefined, { replicated: true })
    const replicaSet = async (schemaVersion: string) => {
      const handle = await createDatabase({ databaseUrl: replicaUrlOf(t.env.DATABASE_URL!), dataDir: t.config.dataDir })
      return new ReplicaSet({ primary: t.db as never, replicas: [{ name: 'replica-1', handle }], positions: new MemoryWalPositions(60_000), maxLagMs: 600_000, schemaVersion, onError: () => {} })
    }
    const anonymousRead = (set: ReplicaSet) =>
      new Promise<string>((resolve, reject) => runWithReads(new RequestReads(true, () => undefined), () => void set.read(async () => 'read').then(resolve, reject)))
    try {
      await caughtUp()
      const newer = await replicaSet(`${latestMigration()}-a-migration-still-to-come`)
      await newer.start()
      expect(newer.stats()[0]).toMatchObject({ schemaReady: false })
      await anonymousRead(newer)
      expect({ primary: newer.primaryReads, replica: newer.stats()[0]!.reads, fallbacks: newer.fallbacks }).toEqual({ primary: 1, replica: 0, fallbacks: 1 })
      const current = await replicaSet(latestMigration())
      await current.start()
      // A new monitor knows the replica's lag from its second round on (a primary position it has replayed).
      await waitFor(() => current.stats()[0]!.lagMs < Number.POSITIVE_INFINITY)
      await anonymousRead(current)
      expect({ primary: current.primaryReads, replica: current.stats()[0]!.reads }).toEqual({ primary: 0, replica: 1 })
      // A read that fails on the replica (its connection lost) runs again on the primary, and the
      // replica is left until the monitor hears from it again.
      const lost = Object.assign(new Error('connection lost'), { code: 'ECONNRESET' })
      const answered = await new Promise<string>((resolve, reject) =>
        runWithReads(new RequestReads(true, () => undefined), () => void current.read(async (db) => (db === (t.db as never) ? 'primary' : Promise.reject(lost))).then(resolve, reject)),
      )
      expect(answered).toBe('primary')
      expect({ primary: current.primaryReads, replica: current.stats()[0]!.reads, fallbacks: current.fallbacks, lagMs: current.stats()[0]!.lagMs }).toEqual({ primary: 1, replica: 2, fallbacks: 1, lagMs: Number.POSITIVE_INFINITY })
      await Promise.all([newer.close(), current.close()])
    } finally {
      await t.close()
    }
  })
})
