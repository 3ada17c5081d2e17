// Three separate nodes (each its own process and data directory, files on S3) behind Debian's
// HAProxy, on one PostgreSQL primary with its real hot standby as the read replica, and Redis:
// under a mixed load of sign-ups, logins, posts, comments, uploads, webhooks and open streams,
// one node is killed with SIGKILL. Then every write acknowledged with 2xx is in the database,
// every webhook of an acknowledged post was delivered, each stream resumed on another node
// without missing an event, the data export the dead node was building is finished by another,
// no scheduled post was published twice, and the only 5xx answers are those of requests in flight
// when the node died. The second run pauses the replica's replay during the load: no caller ever
// reads older data than its own last write, and every logout holds on the next request.
import { randomBytes } from 'node:crypto'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

import pg from 'pg'
import { afterEach, describe, expect, inject, it } from 'vitest'

import { createTestDatabase, dialect, TEST_SECRET_KEY } from '../helpers/app.js'
import type { Balancer } from '../helpers/haproxy.js'
import { startHaproxy } from '../helpers/haproxy.js'
import type { RunningProcess } from '../helpers/process.js'
import { emptyDirectory, startServer, stopServers } from '../helpers/process.js'
import { caughtUp, pauseReplay, replicaUrlOf, resumeReplay } from '../helpers/replica.js'
import type { TestS3Server } from '../helpers/s3.js'
import { startS3Server } from '../helpers/s3.js'
import { ADMIN } from '../helpers/servers.js'
import type { SseClient } from '../helpers/sse.js'
import { openStream } from '../helpers/sse.js'
import type { TcpProxy } from '../helpers/tcp-proxy.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'
import { waitFor } from '../helpers/wait.js'
import { WebhookReceiver } from '../helpers/webhook-receiver.js'

type Node = RunningProcess & { url: string }

const WORKERS = 5
const ITERATIONS = 5
/** Operations completed before the node is killed: about a sixth of the load. */
const KILL_AFTER = 40
const SCHEDULED = 3

interface Answer {
  status: number
  body: Record<string, unknown> | undefined
}

/** A stream that reconnects through the balancer with Last-Event-ID whenever its connection ends. */
class FollowedStream {
  readonly ids: number[] = []
  reconnections = 0
  private current: SseClient | undefined
  private closed = false

  constructor(
    private readonly balancer: string,
    private readonly token: string,
  ) {}

  async open(firstUrl: string): Promise<void> {
    await this.connect(firstUrl)
  }

  close(): void {
    this.closed = true
    this.current?.close()
  }

  private async connect(url: string): Promise<void> {
    const last = this.ids.at(-1)
    const client = await openStream(url, { authorization: `Bearer ${this.token}`, ...(last === undefined ? {} : { 'last-event-id': String(last) }) })
    this.current = client
    let seen = 0
    const take = () => {
      for (const frame of client.frames.slice(seen)) if (frame.id !== undefined && frame.event !== 'reload') this.ids.push(Number(frame.id))
      seen = client.frames.length
    }
    const timer = setInterval(take, 20)
    void client.ended.then(async () => {
      clearInterval(timer)
      take()
      if (this.closed) return
      this.reconnections++
      // The node is gone: the balancer sends the next connection to one that answers.
      await waitFor(async () => {
        try {
          await this.connect(`${this.balancer}/api/v2/events/stream`)
          return true
        } catch {
          return false
        }
      })
    })
    if (client.status !== 200) {
      client.close()
      throw new Error(`stream answered ${client.status}`)
    }
  }
}

describe.runIf(dialect() === 'postgres' && inject('replicaUrl') !== '' && inject('haproxyPath') !== '' && inject('redisUrl') !== '')('three nodes behind HAProxy, one killed with SIGKILL', () => {
  const cleanup: (() => Promise<unknown> | unknown)[] = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step()
  })

  for (const replica of ['streaming', 'paused'] as const) {
    it(`loses nothing acknowledged and serves on (the replica ${replica === 'paused' ? 'paused during the load' : 'streaming'})`, { timeout: 240_000 }, async () => {
      const database = await createTestDatabase({ replicated: true })
      cleanup.push(() => database.drop())
      const s3: TestS3Server = await startS3Server()
      cleanup.push(() => s3.close())
      // The victim reaches S3 through a proxy that can stop forwarding: its export build waits there.
      const s3Proxy: TcpProxy = await startTcpProxy('127.0.0.1', Number(new URL(s3.endpoint).port))
      cleanup.push(() => s3Proxy.close())
      const receiver = await new WebhookReceiver().start()
      cleanup.push(() => receiver.close())
      const cwd = await emptyDirectory()
      const shared = {
        ...database.env,
        ...ADMIN,
        ...s3.env,
        SECRET_KEY: TEST_SECRET_KEY,
        REDIS_URL: inject('redisUrl'),
        DATABASE_REPLICA_URLS: replicaUrlOf(database.env.DATABASE_URL!),
        LOGIN_RATE_LIMIT: '100000',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_BASE_MS: '50',
        DATA_EXPORT_LEASE_SECONDS: '3',
      }
      const nodes: Node[] = []
      cleanup.push(() => stopServers(...nodes))
      const startNode = async (settings: Record<string, string> = {}) => {
        const node = await startServer({ ...shared, DATA_DIR: await mkdtemp(path.join(tmpdir(), 'ups-node-')), ...settings }, cwd)
        nodes.push(node)
        return node
      }
      const primary = new pg.Client({ connectionString: database.env.DATABASE_URL })
      await primary.connect()
      cleanup.push(() => primary.end())

      const send = async (base: string, method: string, route: string, token?: string, body?: object | FormData): Promise<Answer> => {
        const isForm = body instanceof FormData
        const response = await fetch(`${base}/api/v2${route}`, {
          method,
          headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body && !isForm ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body: isForm ? body : JSON.stringify(body) } : {}),
        })
        const text = await response.text()
        return { status: response.status, body: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : undefined }
      }

      // The victim starts alone and claims a data export whose build then waits on the store.
      const victim = await startNode({ S3_ENDPOINT: `http://127.0.0.1:${s3Proxy.port}` })
      const exporter = await send(victim.url, 'POST', '/signup', undefined, { name: 'Exporter', username: `exporter${replica[0]}`, email: `exporter-${replica}@example.com`, password: 'a long password of the exporter', accept_terms: true })
      expect(exporter.status, JSON.stringify(exporter.body)).toBe(201)
      const exporterToken = (exporter.body!.tokens as { access_token: string }).access_token
      expect((await send(victim.url, 'POST', '/posts', exporterToken, { title: 'Exported', text: 'in the ZIP' })).status).toBe(201)
      s3Proxy.hold()
      const asked = await send(victim.url, 'POST', '/users/me/export', exporterToken)
      expect(asked.status).toBe(202)
      const exportId = asked.body!.id as number
      const exportStatus = async (base: string) => (await send(base, 'GET', `/users/me/exports/${exportId}`, exporterToken)).body?.status
      await waitFor(async () => (await exportStatus(victim.url)) === 'building')

      const others = [await startNode(), await startNode()]
      const balancer: Balancer = await startHaproxy(nodes.map((node) => node.url))
      cleanup.push(() => balancer.close())
      const lb = balancer.url
      await caughtUp()

      const admin = await send(lb, 'POST', '/login', undefined, { username: ADMIN.ADMIN_USERNAME, password: ADMIN.ADMIN_PASSWORD })
      const adminToken = admin.body!.access_token as string
      const hook = await send(lb, 'POST', '/admin/webhooks', adminToken, { url: receiver.url, events: ['post.created', 'post.published'] })
      expect(hook.status).toBe(201)
      receiver.secrets = [hook.body!.secret as string]

      // One stream on each node, opened there; reconnections go through the balancer.
      const { rows: before } = await primary.query<{ id: string | null }>('select max(id) as id from change_events')
      const firstEventId = Number(before[0]!.id ?? 0)
      const streams = nodes.map(() => new FollowedStream(lb, adminToken))
      await Promise.all(streams.map((stream, index) => stream.open(`${nodes[index]!.url}/api/v2/events/stream?last_event_id=${firstEventId}`)))
      cleanup.push(() => streams.forEach((stream) => stream.close()))

      // Posts published by the scheduler during the load: each exactly once, whichever node runs the job.
      const publishAt = new Date(Date.now() + 4000).toISOString()
      const scheduled: number[] = []
      for (let index = 0; index < SCHEDULED; index++) {
        const created = await send(lb, 'POST', '/posts', exporterToken, { title: `Scheduled ${index}`, text: 'later', publish_at: publishAt })
        expect(created.status, JSON.stringify(created.body)).toBe(201)
        scheduled.push(created.body!.id as number)
      }

      if (replica === 'paused') {
        await pauseReplay()
        cleanup.push(() => resumeReplay())
      }

      // The load: each worker signs someone up, logs in, writes, reads what it wrote, and logs out.
      const calls: { kind: string; start: number; end: number; status: number; error?: string }[] = []
      const acknowledged = { users: [] as number[], posts: [] as number[], comments: [] as number[], files: [] as number[] }
      const staleReads: string[] = []
      const revocationsMissed: string[] = []
      let completed = 0
      let killedAt = Number.POSITIVE_INFINITY
      const call = async (kind: string, method: string, route: string, token?: string, body?: object | FormData): Promise<Answer> => {
        const start = Date.now()
        let error: string | undefined
        const answer = await send(lb, method, route, token, body).catch((failure: unknown) => {
          error = String((failure as { cause?: unknown }).cause ?? failure)
          return { status: 0, body: undefined }
        })
        calls.push({ kind, start, end: Date.now(), status: answer.status, ...(error === undefined ? {} : { error }) })
        if (++completed === KILL_AFTER) {
          victim.child.kill('SIGKILL')
          killedAt = Date.now()
        }
        return answer
      }
      const worker = async (index: number) => {
        for (let iteration = 0; iteration < ITERATIONS; iteration++) {
          const username = `w${replica[0]}${index}i${iteration}${randomBytes(2).toString('hex')}`
          const password = `a long password of ${username}`
          const signUp = await call('sign-up', 'POST', '/signup', undefined, { name: username, username, email: `${username}@example.com`, password, accept_terms: true })
          if (signUp.status !== 201) continue
          acknowledged.users.push(signUp.body!.id as number)
          const login = await call('login', 'POST', '/login', undefined, { username, password })
          if (login.status !== 200) continue
          const token = login.body!.access_token as string
          const me = await call('read own account', 'GET', '/users/me', token)
          if (me.status < 500 && me.status !== 0 && me.status !== 200) staleReads.push(`${username}: GET /users/me answered ${me.status}`)

          const post = await call('post', 'POST', '/posts', token, { title: `Post of ${username}`, text: 'Written under load' })
          if (post.status === 201) {
            const postId = post.body!.id as number
            acknowledged.posts.push(postId)
            const read = await call('read own post', 'GET', `/posts/${postId}`, token)
            if (read.status < 500 && read.status !== 0 && read.status !== 200) staleReads.push(`${username}: GET /posts/${postId} answered ${read.status}`)
            const comment = await call('comment', 'POST', `/posts/${postId}/comments`, token, { text: 'A comment under load' })
            if (comment.status === 201) {
              const commentId = comment.body!.id as number
              acknowledged.comments.push(commentId)
              const thread = await call('read own comment', 'GET', `/posts/${postId}/comments`, token)
              if (thread.status === 200 && !JSON.stringify(thread.body).includes(`"id":${commentId}`)) staleReads.push(`${username}: comment ${commentId} missing from its post's threads`)
            }
          }
          const form = new FormData()
          form.append('file', new Blob([Buffer.from(`uploaded by ${username}\n`)], { type: 'text/plain' }), 'note.txt')
          const upload = await call('upload', 'POST', '/files', token, form)
          if (upload.status === 201) acknowledged.files.push(upload.body!.id as number)

          const logout = await call('logout', 'POST', '/logout', token)
          if (logout.status >= 200 && logout.status < 300) {
            const after = await call('after logout', 'GET', '/users/me', token)
            if (after.status !== 401 && after.status < 500 && after.status !== 0) revocationsMissed.push(`${username}: ${after.status}`)
          }
        }
      }
      // When the balancer took the dead node out: until then it may send it requests that die with it.
      let downAt = Number.POSITIVE_INFINITY
      const watching = (async () => {
        await waitFor(() => killedAt < Number.POSITIVE_INFINITY)
        await waitFor(() => balancer.isDown(0))
        downAt = Date.now()
      })()
      await Promise.all(Array.from({ length: WORKERS }, (_, index) => worker(index)))
      await watching
      expect(killedAt, 'the node was killed during the load').toBeLessThan(Number.POSITIVE_INFINITY)
      await victim.exited
      s3Proxy.release()
      if (replica === 'paused') await resumeReplay()

      // No caller read older data than its own write; every logout held at once.
      expect(staleReads).toEqual([])
      expect(revocationsMissed).toEqual([])
      // The only failures are requests in flight on the node when it died: sent before the balancer
      // took it out, and not answered before it was killed.
      const failed = calls.filter((entry) => entry.status >= 500 || entry.status === 0)
      expect(failed.filter((entry) => !(entry.start <= downAt && entry.end >= killedAt)).map((entry) => ({ ...entry, killedAt, downAt }))).toEqual([])
      expect(calls.length - failed.length).toBeGreaterThan(WORKERS * ITERATIONS * 5)

      // Every acknowledged write is in the database.
      const present = async (table: string, ids: number[]) => (await primary.query<{ id: number }>(`select id from ${table} where id = any($1::int[])`, [ids])).rows.length
      expect(await present('users', acknowledged.users)).toBe(acknowledged.users.length)
      expect(await present('posts', acknowledged.posts)).toBe(acknowledged.posts.length)
      expect(await present('comments', acknowledged.comments)).toBe(acknowledged.comments.length)
      expect(await present('files', acknowledged.files)).toBe(acknowledged.files.length)

      // Another node finishes the export the dead one was building.
      await waitFor(async () => (await exportStatus(lb)) === 'ready')

      // The scheduler published each scheduled post once, whichever node ran it.
      await waitFor(async () => (await primary.query(`select 1 from change_events where type = 'post.published' and subject = any($1::text[])`, [scheduled.map((id) => `post:${id}`)])).rows.length >= SCHEDULED)
      const { rows: published } = await primary.query<{ subject: string; count: string }>(`select subject, count(*)::text as count from change_events where type = 'post.published' group by subject`)
      expect(Object.fromEntries(published.map((row) => [row.subject, Number(row.count)]))).toEqual(Object.fromEntries(scheduled.map((id) => [`post:${id}`, 1])))

      // Every acknowledged post's webhook arrived (at least once), and each scheduled post's publication once.
      const delivered = (type: string) => receiver.received.filter((entry) => entry.message.type === type)
      await waitFor(() => acknowledged.posts.every((id) => delivered('post.created').some((entry) => entry.message.data.id === id)))
      await waitFor(() => scheduled.every((id) => delivered('post.published').some((entry) => entry.message.data.id === id)))
      for (const id of scheduled) expect(new Set(delivered('post.published').filter((entry) => entry.message.data.id === id).map((entry) => entry.id)).size).toBe(1)

      // Each stream, the victim's resumed elsewhere, saw every event.
      const { rows: events } = await primary.query<{ id: number }>('select id from change_events where id > $1 order by id', [firstEventId])
      const expected = events.map((row) => row.id)
      await waitFor(() => streams.every((stream) => expected.every((id) => stream.ids.includes(id))))
      expect(streams[0]!.reconnections).toBeGreaterThan(0)
      for (const other of others) expect(other.child.exitCode).toBeNull()
    })
  }
})
