// Webhooks end to end against a real HTTP receiver that checks every signature with the
// Standard Webhooks package: the event catalogue in the order it happened, v2's read shapes with
// nothing secret in them, retries with the same webhook-id while the receiver is down, secret
// rotation (both signatures for a day), ping and redelivery, custom fields only of the levels the
// change events carry, a change that rolls back sending nothing, endpoints turned off after three
// days of failures, and the address classes refused.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp, dialect } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import type { TestSmtpServer } from '../../../test/helpers/smtp.js'
import { createAppWithSmtp, tokenIn } from '../../../test/helpers/smtp.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, userFields, V2 } from '../../../test/helpers/users.js'
import { drained, waitFor } from '../../../test/helpers/wait.js'
import { WebhookReceiver } from '../../../test/helpers/webhook-receiver.js'
import { isPublicAddress } from './outgoing-request.js'

const ALL_EVENTS = ['user.created', 'user.updated', 'user.email_verified', 'user.deleted', 'user.restored', 'user.removed', 'post.created', 'post.updated', 'post.deleted', 'post.removed']

/** Custom fields of each level on posts and users: a webhook carries what the stream's readers may read. */
const CONTENT_SCHEMA = {
  posts: { properties: { rating: { type: 'integer', visibility: 'public' }, note: { type: 'string', visibility: 'private' }, crm_id: { type: 'string', visibility: 'server' } } },
  users: { properties: { team: { type: 'string', visibility: 'public' }, phone: { type: 'string', visibility: 'private' }, plan: { type: 'string', visibility: 'server' } } },
}

let smtp: TestSmtpServer
let t: TestApp
let close: () => Promise<void>
let admin: LoggedIn
beforeAll(async () => {
  const setup = await createAppWithSmtp({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50', CONTENT_SCHEMA: JSON.stringify(CONTENT_SCHEMA) })
  ;({ smtp, t, close } = setup)
  admin = await seedAndLogin(t.app, {}, { superuser: true })
})
afterAll(() => close())

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT', url: string, payload?: object, headers: Record<string, string> = admin.headers) =>
  t.app.inject({ method, url: `${V2}${url}`, headers, ...(payload === undefined ? {} : { payload }) })

/** A receiver and an endpoint registered for it, with the secret the receiver verifies with. */
async function endpoint(events: string[] = ALL_EVENTS): Promise<{ receiver: WebhookReceiver; id: number; secret: string }> {
  const receiver = await new WebhookReceiver().start()
  const response = await call('POST', '/admin/webhooks', { url: receiver.url, events, description: 'test' })
  expect(response.statusCode).toBe(201)
  const { id, secret } = response.json() as { id: number; secret: string }
  receiver.secrets = [secret]
  return { receiver, id, secret }
}

/** 422 naming the url field, with the refusal's type. */
function expectUrlRefused(response: Awaited<ReturnType<typeof call>>): void {
  expectError(response, 422)
  expect((response.json() as { errors: { loc: string[]; type: string }[] }).errors).toEqual([expect.objectContaining({ loc: ['body', 'url'], type: 'url_refused' })])
}

const deliveriesOf = async (id: number) =>
  (await call('GET', `/admin/webhooks/${id}/deliveries?limit=100`)).json() as { data: { id: number; message_id: string; event_type: string; status: string; attempts: number; last_status_code: number | null; last_error: string | null; next_attempt_at: string | null }[] }

describe('managing webhooks', () => {
  it('registers an endpoint with a secret shown once, lists, changes and removes it; superusers only', async () => {
    const created = await call('POST', '/admin/webhooks', { url: 'https://hooks.example.com/in', events: ['post.created', 'post.created'], description: 'CRM' })
    expect(created.statusCode).toBe(201)
    const body = created.json() as { id: number; secret: string; events: string[]; enabled: boolean }
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(body).toMatchObject({ events: ['post.created'], enabled: true, description: 'CRM', disabled_reason: null, failing_since: null })

    const read = await call('GET', `/admin/webhooks/${body.id}`)
    expect(read.statusCode).toBe(200)
    expect(read.body).not.toContain(body.secret)
    expect(read.json()).not.toHaveProperty('secret')
    const list = (await call('GET', '/admin/webhooks')).json() as { data: { id: number }[] }
    expect(list.data.map((item) => item.id)).toContain(body.id)

    const changed = await call('PATCH', `/admin/webhooks/${body.id}`, { events: ['user.created', 'post.removed'], enabled: false })
    expect(changed.json()).toMatchObject({ events: ['user.created', 'post.removed'], enabled: false })
    expect((await call('DELETE', `/admin/webhooks/${body.id}`)).statusCode).toBe(200)
    expectError(await call('GET', `/admin/webhooks/${body.id}`), 404, 'Webhook not found', 'webhook_not_found')
    expectError(await call('DELETE', `/admin/webhooks/${body.id}`), 404, 'Webhook not found', 'webhook_not_found')

    const someone = await seedAndLogin(t.app)
    expectError(await call('GET', '/admin/webhooks', undefined, someone.headers), 403)
    expectError(await call('POST', '/admin/webhooks', { url: 'https://hooks.example.com/', events: ['user.created'] }, someone.headers), 403)
    const types = (await t.db.selectFrom('security_events').select('type').where('user_id', '=', admin.user.id).execute()).map((row) => row.type)
    expect(types).toEqual(expect.arrayContaining(['webhook_created', 'webhook_deleted']))
  })

  it('refuses unknown events, an empty list, other schemes and URLs with credentials', async () => {
    expectError(await call('POST', '/admin/webhooks', { url: 'https://hooks.example.com/', events: ['user.exploded'] }), 422)
    expectError(await call('POST', '/admin/webhooks', { url: 'https://hooks.example.com/', events: [] }), 422)
    for (const url of ['ftp://hooks.example.com/', 'file:///etc/passwd', 'not a url', 'https://user:pw@hooks.example.com/']) {
      expectUrlRefused(await call('POST', '/admin/webhooks', { url, events: ['user.created'] }))
    }
  })
})

describe('delivering change events', () => {
  it('delivers every event of the catalogue, signed, in order per resource, in v2 read shapes with nothing secret', async () => {
    const { receiver, id } = await endpoint()
    // user.created and user.email_verified: a sign-up and its mailed link.
    const fields = userFields()
    const signup = await t.app.inject({ method: 'POST', url: `${V2}/signup`, payload: { ...fields, accept_terms: true } })
    expect(signup.statusCode, signup.body).toBe(201)
    const userId = (signup.json() as { id: number }).id
    const [mail] = await smtp.waitFor(fields.email)
    expect((await t.app.inject({ method: 'POST', url: `${V2}/email-verification/confirm`, payload: { token: tokenIn(mail!) } })).statusCode).toBe(200)
    const own = { authorization: `Bearer ${(signup.json() as { tokens: { access_token: string } }).tokens.access_token}` }
    expect((await call('PATCH', `/users/${userId}`, { name: 'Renamed' }, own)).statusCode).toBe(200)
    // post.*
    const created = await call('POST', '/posts', { title: 'Hello', text: 'World' }, own)
    const postId = (created.json() as { id: number }).id
    expect((await call('PATCH', `/posts/${postId}`, { title: 'Hello again' }, own)).statusCode).toBe(200)
    expect((await call('DELETE', `/posts/${postId}`, undefined, own)).statusCode).toBe(200)
    expect((await call('DELETE', `/posts/${postId}/permanent`)).statusCode).toBe(200)
    // user.deleted, user.restored, user.removed
    expect((await call('DELETE', `/users/${userId}`)).statusCode).toBe(200)
    expect((await call('POST', `/users/${userId}/restore`)).statusCode).toBe(200)
    expect((await call('DELETE', `/users/${userId}/permanent`)).statusCode).toBe(200)

    await waitFor(() => receiver.received.length >= 10)
    const about = (subject: string) => receiver.received.filter((entry) => `${entry.message.type.split('.')[0]}:${String(entry.message.data.id)}` === subject).map((entry) => entry.message.type)
    expect(about(`user:${userId}`)).toEqual(['user.created', 'user.email_verified', 'user.updated', 'user.deleted', 'user.restored', 'user.removed'])
    expect(about(`post:${postId}`)).toEqual(['post.created', 'post.updated', 'post.deleted', 'post.removed'])
    for (const entry of receiver.received) {
      expect(entry.verifiedWith).toEqual([true])
      expect(entry.id).toMatch(/^msg_[0-9a-f-]{36}$/)
      expect(Math.abs(Number(entry.timestamp) - Date.now() / 1000)).toBeLessThan(60)
      expect(entry.message.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/)
      expect(entry.body).not.toMatch(/hashed_password|password|argon2|refresh_token|access_token|secret/)
    }
    const user = receiver.of('user.updated')[0]!.message.data
    expect(user).toEqual({ id: userId, name: 'Renamed', username: fields.username, email: fields.email, avatar_url: expect.any(String), subscription_tier: null, created_at: expect.any(String), is_verified: true, locale: null, fields: {} })
    expect(receiver.of('post.updated')[0]!.message.data).toMatchObject({ id: postId, title: 'Hello again', text: 'World', author_id: userId })
    // Each message id once (nothing was retried), and the deliveries page says so.
    expect(new Set(receiver.received.map((entry) => entry.id)).size).toBe(receiver.received.length)
    // The relay writes each outcome after the receiver answered: wait until none is pending.
    await waitFor(async () => (await deliveriesOf(id)).data.every((delivery) => delivery.status !== 'pending'))
    const deliveries = await deliveriesOf(id)
    expect(deliveries.data.length).toBe(10)
    for (const delivery of deliveries.data) expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1, last_status_code: 204, next_attempt_at: null })
    await receiver.close()
  })

  it("carries custom fields as the change events do: a post's public ones, a user's public and private ones, never a server one", async () => {
    const { receiver } = await endpoint(['post.created', 'post.updated', 'user.updated'])
    const author = await seedAndLogin(t.app)
    const created = await call('POST', '/posts', { title: 'Fielded', text: '…', fields: { rating: 4, note: 'for editors' } }, author.headers)
    expect(created.statusCode, created.body).toBe(201)
    expect((await call('PATCH', `/posts/${(created.json() as { id: number }).id}`, { fields: { crm_id: 'crm-77' } })).statusCode).toBe(200)
    expect((await call('PATCH', `/users/${author.user.id}`, { fields: { team: 'core', phone: '+1 555', plan: 'gold-plan' } })).statusCode).toBe(200)
    await waitFor(() => receiver.of('post.updated').length >= 1 && receiver.of('user.updated').length >= 1)
    expect(receiver.of('post.created')[0]!.message.data.fields).toEqual({ rating: 4 })
    expect(receiver.of('post.updated')[0]!.message.data.fields).toEqual({ rating: 4 })
    expect(receiver.of('user.updated')[0]!.message.data.fields).toEqual({ team: 'core', phone: '+1 555' })
    expect(receiver.received.map((entry) => entry.body).join('\n')).not.toMatch(/for editors|crm-77|gold-plan/)
    await receiver.close()
  })

  it('delivers only the events an endpoint subscribed to', async () => {
    const { receiver } = await endpoint(['post.created'])
    const author = await seedAndLogin(t.app)
    const created = await call('POST', '/posts', { title: 'Only this', text: '…' }, author.headers)
    await call('PATCH', `/posts/${(created.json() as { id: number }).id}`, { title: 'Not this' }, author.headers)
    await waitFor(() => receiver.received.length >= 1)
    await drained(t.app, 'webhooks')
    expect(receiver.received.map((entry) => entry.message.type)).toEqual(['post.created'])
    await receiver.close()
  })

  it('delivers to a new endpoint only what happens after it was registered', async () => {
    const author = await seedAndLogin(t.app)
    // Written just before the endpoint: still waiting to be forwarded when it is registered.
    await call('POST', '/posts', { title: 'Before', text: '…' }, author.headers)
    const { receiver, id } = await endpoint(['post.created'])
    await call('POST', '/posts', { title: 'After', text: '…' }, author.headers)
    await waitFor(() => receiver.received.length >= 1)
    await call('POST', `/admin/webhooks/${id}/test`)
    await waitFor(() => receiver.of('ping').length >= 1)
    expect(receiver.of('post.created').map((entry) => entry.message.data.title)).toEqual(['After'])
    await receiver.close()
  })

  it('retries while the receiver is down and delivers each event once it is back, with the same webhook-id', async () => {
    const { receiver, id } = await endpoint(['post.created', 'post.updated'])
    const author = await seedAndLogin(t.app)
    await receiver.close()
    const created = await call('POST', '/posts', { title: 'While down', text: '…' }, author.headers)
    const postId = (created.json() as { id: number }).id
    await waitFor(async () => (await deliveriesOf(id)).data.some((delivery) => delivery.attempts >= 2))
    // Reopened but failing: a 503 is a failed attempt too.
    await receiver.reopen()
    receiver.respond = () => ({ status: 503 })
    await waitFor(() => receiver.attempts >= 1)
    await call('PATCH', `/posts/${postId}`, { title: 'Later' }, author.headers)
    receiver.respond = () => ({ status: 200 })
    await waitFor(() => receiver.received.length >= 2)
    expect(receiver.received.map((entry) => entry.message.type)).toEqual(['post.created', 'post.updated'])
    const deliveries = await deliveriesOf(id)
    const first = deliveries.data.find((delivery) => delivery.event_type === 'post.created')!
    expect(first.status).toBe('succeeded')
    expect(first.attempts).toBeGreaterThanOrEqual(3)
    expect(receiver.received[0]!.id).toBe(first.message_id)
    expect(receiver.attempts).toBeGreaterThan(receiver.received.length)
    await receiver.close()
  })

  it('sends a ping and a redelivery with the same webhook-id; a rotated secret signs beside the new one', async () => {
    const { receiver, id, secret } = await endpoint(['user.created'])
    const ping = await call('POST', `/admin/webhooks/${id}/test`)
    expect(ping.statusCode).toBe(202)
    await waitFor(() => receiver.received.length >= 1)
    expect(receiver.received[0]!.message).toEqual({ type: 'ping', timestamp: expect.any(String), data: { webhook_id: id } })
    const again = await call('POST', `/admin/webhooks/deliveries/${(ping.json() as { id: number }).id}/redeliver`)
    expect(again.statusCode).toBe(202)
    await waitFor(() => receiver.received.length >= 2)
    expect(receiver.received[1]!.id).toBe(receiver.received[0]!.id)
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body)

    const rotated = await call('POST', `/admin/webhooks/${id}/rotate-secret`)
    const { secret: next, previous_valid_until } = rotated.json() as { secret: string; previous_valid_until: string }
    expect(next).not.toBe(secret)
    expect(Date.parse(previous_valid_until) - Date.now()).toBeGreaterThan(23 * 3600_000)
    receiver.secrets = [secret, next]
    await call('POST', `/admin/webhooks/${id}/test`)
    await waitFor(() => receiver.received.length >= 3)
    expect(receiver.received[2]!.signatures).toHaveLength(2)
    expect(receiver.received[2]!.verifiedWith).toEqual([true, true])
    expectError(await call('POST', '/admin/webhooks/deliveries/999999/redeliver'), 404, 'Webhook delivery not found', 'webhook_delivery_not_found')
    await receiver.close()
  })

  it('sends nothing for a change that rolls back, and the change does not happen without its event', async () => {
    const { receiver } = await endpoint(['user.updated', 'user.created'])
    const someone = await seedAndLogin(t.app)
    // The event's row is refused by the database: the change in the same transaction goes with it.
    if (dialect() === 'postgres') {
      await sql`create function refuse_boom() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`.execute(t.db)
      await sql`create trigger refuse_boom before insert on change_events for each row when (new.data like '%Boom%') execute function refuse_boom()`.execute(t.db)
    } else {
      await sql`create trigger refuse_boom before insert on change_events when new.data like '%Boom%' begin select raise(abort, 'refused'); end`.execute(t.db)
    }
    try {
      const refused = await call('PATCH', `/users/${someone.user.id}`, { name: 'Boom' }, someone.headers)
      expect(refused.statusCode).toBe(500)
      expect(refused.body).not.toMatch(/refused|change_events|insert/i)
      expect((await call('GET', `/users/${someone.user.id}`, undefined, someone.headers)).json()).toMatchObject({ name: someone.user.name })
      await call('PATCH', `/users/${someone.user.id}`, { name: 'Fine' }, someone.headers)
      await waitFor(() => receiver.of('user.updated').length >= 1)
      await drained(t.app, 'webhooks')
      expect(receiver.of('user.updated').map((entry) => entry.message.data.name)).toEqual(['Fine'])
    } finally {
      await sql`drop trigger refuse_boom${dialect() === 'postgres' ? sql` on change_events` : sql``}`.execute(t.db)
      await receiver.close()
    }
  })

  it('turns off an endpoint that has failed for three days, and says so in the security log', async () => {
    const { receiver, id } = await endpoint(['user.created'])
    receiver.respond = () => ({ status: 500, body: 'x'.repeat(100_000) })
    await t.db.updateTable('webhooks').set({ failing_since: Date.now() - 3 * 24 * 3600_000 - 1000 }).where('id', '=', id).execute()
    await call('POST', `/admin/webhooks/${id}/test`)
    await waitFor(async () => (await call('GET', `/admin/webhooks/${id}`)).json<{ enabled: boolean }>().enabled === false)
    const read = (await call('GET', `/admin/webhooks/${id}`)).json()
    expect(read).toMatchObject({ enabled: false, disabled_reason: 'Deliveries failed for three days' })
    const [delivery] = (await deliveriesOf(id)).data
    expect(delivery).toMatchObject({ status: 'pending', last_status_code: 500 })
    expect(delivery!.last_error!.length).toBeLessThanOrEqual(500)
    const logged = await t.db.selectFrom('security_events').select('type').where('type', '=', 'webhook_disabled').execute()
    expect(logged.length).toBeGreaterThanOrEqual(1)
    // Turned back on, the pending delivery goes out.
    receiver.respond = () => ({ status: 200 })
    const enabled = await call('PATCH', `/admin/webhooks/${id}`, { enabled: true })
    expect(enabled.json()).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null })
    await waitFor(() => receiver.received.length >= 1)
    await receiver.close()
  })

  it('does not follow redirects', async () => {
    const { receiver, id } = await endpoint(['user.created'])
    receiver.respond = (path) => (path === '/hook' ? { status: 302, headers: { location: '/elsewhere' } } : { status: 200 })
    await call('POST', `/admin/webhooks/${id}/test`)
    await waitFor(async () => (await deliveriesOf(id)).data[0]?.last_status_code === 302)
    expect(receiver.received).toEqual([])
    await receiver.close()
  })
})

describe('outgoing requests to non-public addresses (WEBHOOK_ALLOW_PRIVATE unset)', () => {
  let strict: TestApp
  let strictAdmin: LoggedIn
  beforeAll(async () => {
    strict = await createTestApp({ WEBHOOK_RETRY_BASE_MS: '60000' })
    strictAdmin = await seedAndLogin(strict.app, {}, { superuser: true })
  })
  afterAll(() => strict.close())

  it.each([
    ['loopback', 'http://127.0.0.1:8080/hook'],
    ['loopback, another form', 'http://127.1/hook'],
    ['loopback IPv6', 'http://[::1]/hook'],
    ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/hook'],
    ['private', 'http://10.1.2.3/hook'],
    ['private 172.16/12', 'http://172.20.0.1/hook'],
    ['private 192.168/16', 'http://192.168.1.1/hook'],
    ['link-local and cloud metadata', 'http://169.254.169.254/latest/meta-data/'],
    ['carrier-grade NAT (another metadata service)', 'http://100.100.100.200/'],
    ['unique local IPv6', 'http://[fd00:ec2::254]/'],
    ['link-local IPv6', 'http://[fe80::1]/'],
    ['unspecified', 'http://0.0.0.0/'],
    ['IPv4-compatible loopback', 'http://[::127.0.0.1]/hook'],
    ['IPv4-compatible link-local (metadata)', 'http://[::a9fe:a9fe]/latest/meta-data/'],
    ['IPv4-translated private', 'http://[::ffff:0:10.0.0.1]/hook'],
    ['NAT64 loopback', 'http://[64:ff9b::127.0.0.1]/hook'],
    ['6to4 private', 'http://[2002:c0a8:101::1]/hook'],
    ['Teredo with a loopback client', 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook'],
  ])('refuses %s when registered', async (_label, url) => {
    const response = await strict.app.inject({ method: 'POST', url: `${V2}/admin/webhooks`, headers: strictAdmin.headers, payload: { url, events: ['user.created'] } })
    expectUrlRefused(response)
    // The refusal names the setting a local receiver needs.
    expect(response.json().detail).toMatch(/set WEBHOOK_ALLOW_PRIVATE=true for local receivers/)
  })

  it('refuses at connect time a name that resolves to a loopback address', async () => {
    const receiver = await new WebhookReceiver().start()
    const url = receiver.url.replace('127.0.0.1', 'localhost')
    const created = await strict.app.inject({ method: 'POST', url: `${V2}/admin/webhooks`, headers: strictAdmin.headers, payload: { url, events: ['user.created'] } })
    expect(created.statusCode).toBe(201)
    const { id } = created.json() as { id: number }
    await strict.app.inject({ method: 'POST', url: `${V2}/admin/webhooks/${id}/test`, headers: strictAdmin.headers })
    await waitFor(async () => {
      const page = (await strict.app.inject({ method: 'GET', url: `${V2}/admin/webhooks/${id}/deliveries`, headers: strictAdmin.headers })).json() as { data: { attempts: number }[] }
      return (page.data[0]?.attempts ?? 0) >= 1
    })
    const [delivery] = ((await strict.app.inject({ method: 'GET', url: `${V2}/admin/webhooks/${id}/deliveries`, headers: strictAdmin.headers })).json() as { data: { last_error: string; status: string }[] }).data
    expect(delivery!.last_error).toMatch(/^refused: localhost resolves to a non-public address .*WEBHOOK_ALLOW_PRIVATE=true allows it/)
    expect(delivery!.status).toBe('pending')
    expect(receiver.attempts).toBe(0)
    await receiver.close()
  })

  it('judges addresses by class', () => {
    for (const address of ['127.0.0.1', '10.0.0.1', '172.16.0.1', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '255.255.255.255', '224.0.0.1', '::1', '::', 'fe80::1', 'fc00::1', '::ffff:10.0.0.1', '64:ff9b::a00:1', '2002:a00:1::', '::127.0.0.1', '::7f00:1', '::a9fe:a9fe', '::10.0.0.1', '::ffff:0:7f00:1', '2001:0:4136:e378:8000:63bf:80ff:fffe']) {
      expect(isPublicAddress(address), address).toBe(false)
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1']) expect(isPublicAddress(address), address).toBe(true)
  })
})
