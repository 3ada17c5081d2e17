// "Download my data" over HTTP and a real SMTP server: a fresh session asks; the job builds the
// ZIP; the mailed link opens a page (a mail scanner fetching it spends nothing) whose button
// downloads it once; the archive, unzipped, holds every part of the account file by file (posts in
// every state, the uploaded file's bytes, sessions, keys, the security log, organizations) and no
// hash, token or secret; one export a day; links and exports expire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import { multipart } from '../../../test/helpers/multipart.js'
import type { TestSmtpServer } from '../../../test/helpers/smtp.js'
import { createAppWithSmtp } from '../../../test/helpers/smtp.js'
import { sessionOf } from '../../../test/helpers/tokens.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { login, seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { waitFor } from '../../../test/helpers/wait.js'
import { unzip } from '../../../test/helpers/zip.js'

let smtp: TestSmtpServer
let t: TestApp
let close: () => Promise<void>
beforeAll(async () => {
  ;({ smtp, t, close } = await createAppWithSmtp({ LOGIN_RATE_LIMIT: '1000', PUBLIC_URL: 'http://localhost:8000' }))
})
afterAll(() => close())

const request = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, who: LoggedIn | undefined, payload?: object) =>
  t.app.inject({ method, url: `${V2}${url}`, ...(payload ? { payload } : {}), headers: who?.headers ?? {} })

/** Waits for the export to be ready, and answers it. */
async function ready(who: LoggedIn, id: number): Promise<{ status: string; size: number; items_written: number; expires_at: string }> {
  let last: { status: string } = { status: '' }
  await waitFor(async () => {
    last = (await request('GET', `/users/me/exports/${id}`, who)).json()
    return last.status === 'ready'
  })
  return last as never
}

/** The token of the download link mailed to `email`, which opens the service's own download page. */
async function mailedToken(email: string): Promise<string> {
  const [mail] = await smtp.waitFor(email, 1)
  expect(mail!.subject).toBe('Your data is ready to download')
  const link = new URL(/(http\S+\/account\/data-export\S+)/.exec(mail!.text)![1]!)
  expect(link.origin).toBe('http://localhost:8000')
  expect(mail!.html).toContain(`/account/data-export?token=${link.searchParams.get('token')}`)
  return link.searchParams.get('token')!
}

/** The download page's button: a form POST of the token. */
const pressDownload = (token: string) =>
  t.app.inject({ method: 'POST', url: '/account/data-export', payload: new URLSearchParams({ token }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } })

describe('downloading my data', () => {
  it('builds a ZIP of everything the account holds, mails a link that downloads it once, and holds no secret', async () => {
    const who = await seedAndLogin(t.app, {}, { verified: true })
    const second = await login(t.app, who.user.username, who.user.password, V2)
    const posts = [
      { title: 'Published', text: 'Out there' },
      { title: 'Draft', text: 'Not yet', status: 'draft' },
      { title: 'Private', text: 'Only me', visibility: 'private' },
      { title: 'Deleted', text: 'Gone' },
    ]
    const ids: number[] = []
    for (const post of posts) ids.push((await request('POST', '/posts/', who, post)).json().id)
    expect((await request('DELETE', `/posts/${ids[3]}`, who)).statusCode).toBe(200)
    expect((await request('PATCH', `/posts/${ids[0]}`, who, { text: 'Out there, edited' })).statusCode).toBe(200)
    const said = (await request('POST', `/posts/${ids[0]}/comments`, who, { text: 'My own comment' })).json() as { id: number }
    const unsaid = (await request('POST', `/posts/${ids[0]}/comments`, who, { text: 'Taken back' })).json() as { id: number }
    expect((await request('DELETE', `/comments/${unsaid.id}`, who)).statusCode).toBe(200)
    expect((await request('PUT', `/posts/${ids[0]}/reactions/love`, who)).statusCode).toBe(200)
    expect((await request('PUT', `/comments/${said.id}/reactions/like`, who)).statusCode).toBe(200)
    const blocked = await seedAndLogin(t.app)
    expect((await request('POST', '/users/me/blocks', who, { user_id: blocked.user.id })).statusCode).toBe(201)
    expect((await request('POST', '/reports', who, { target: 'user', id: blocked.user.id, reason: 'spam' })).statusCode).toBe(201)
    const bytes = Buffer.from('my notes, in a file\n')
    const form = multipart([{ field: 'file', filename: '../my notes.txt', contentType: 'text/plain', data: bytes }])
    const uploaded = await t.app.inject({ method: 'POST', url: `${V2}/files`, payload: form.payload, headers: { ...form.headers, ...who.headers } })
    expect(uploaded.statusCode, uploaded.body).toBe(201)
    const apiKey = (await request('POST', '/api-keys/', who, { name: 'my script', scopes: ['read'] })).json() as { key: string }
    const org = (await request('POST', '/orgs', who, { name: 'My Club' })).json() as { id: number }

    const asked = await request('POST', '/users/me/export', who)
    expect(asked.statusCode, asked.body).toBe(202)
    const { id, status } = asked.json()
    expect(status).toBe('queued')
    const done = await ready(who, id)
    expect(done.size).toBeGreaterThan(0)
    expect(Date.parse(done.expires_at) - Date.now()).toBeGreaterThan(6.9 * 86_400_000)
    expect((await request('GET', '/users/me/exports', who)).json().map((item: { id: number }) => item.id)).toEqual([id])

    const token = await mailedToken(who.user.email)
    // The link opens a page: fetching it, as a mail scanner does, spends nothing.
    for (let fetched = 0; fetched < 2; fetched++) {
      const page = await t.app.inject({ url: `/account/data-export?token=${encodeURIComponent(token)}` })
      expect(page.statusCode).toBe(200)
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(page.body).toContain('<form method="post" action="/account/data-export">')
    }
    const downloaded = await pressDownload(token)
    expect(downloaded.statusCode).toBe(200)
    expect(downloaded.headers['content-type']).toBe('application/zip')
    expect(downloaded.headers['content-disposition']).toBe(`attachment; filename="data-export-${id}.zip"`)
    expect(downloaded.rawPayload.length).toBe(done.size)
    // Single use: the same link again is refused, on the page and by the API.
    const spent = await pressDownload(token)
    expect(spent.statusCode).toBe(400)
    expect(spent.body).toContain('This link no longer works')
    expectError(await t.app.inject({ url: `${V2}/exports/download?token=${encodeURIComponent(token)}` }), 400, undefined, 'invalid_token')

    const entries = await unzip(downloaded.rawPayload)
    const json = (name: string) => JSON.parse(entries.get(name)!.toString('utf8'))
    expect([...entries.keys()].sort()).toEqual(
      ['README.txt', 'api-keys.json', 'blocks.json', 'comments.json', 'devices.json', `files/${uploaded.json().id}-my_notes.txt`, 'files.json', 'identities.json', 'organizations.json', 'passkeys.json', 'post-revisions.json', 'posts.json', 'profile.json', 'reactions.json', 'reports.json', 'security-events.json', 'sessions.json'].sort(),
    )
    const readme = entries.get('README.txt')!.toString('utf8')
    for (const name of entries.keys()) if (!name.startsWith('files/')) expect(readme).toContain(name === 'README.txt' ? 'Your data' : name)
    expect(json('profile.json')).toMatchObject({ id: who.user.id, username: who.user.username, email: who.user.email, is_verified: true })
    const exportedPosts = json('posts.json') as { id: number; title: string; status: string; visibility: string; deleted_at: string | null; purge_at: string | null }[]
    expect(exportedPosts.map((post) => post.title)).toEqual(posts.map((post) => post.title))
    expect(exportedPosts.map((post) => [post.status, post.visibility])).toEqual([['published', 'public'], ['draft', 'public'], ['published', 'private'], ['published', 'public']])
    expect(exportedPosts.map((post) => post.deleted_at !== null)).toEqual([false, false, false, true])
    // The deleted one waits in the trash: the export says until when.
    expect(exportedPosts.map((post) => post.purge_at !== null)).toEqual([false, false, false, true])
    expect(json('post-revisions.json')).toMatchObject([{ post_id: ids[0], title: 'Published', text: 'Out there' }])
    expect(entries.get(`files/${uploaded.json().id}-my_notes.txt`)).toEqual(bytes)
    expect(json('files.json')).toMatchObject([{ id: uploaded.json().id, name: 'my notes.txt', size: bytes.length }])
    expect(json('sessions.json')).toHaveLength(2)
    expect(json('api-keys.json')).toMatchObject([{ name: 'my script', scopes: ['read'] }])
    expect(json('api-keys.json')[0]).not.toHaveProperty('prefix')
    expect(json('organizations.json')).toMatchObject([{ id: org.id, name: 'My Club', role: 'owner' }])
    expect(json('comments.json')).toMatchObject([
      { id: said.id, post_id: ids[0], text: 'My own comment', status: 'visible' },
      { id: unsaid.id, text: '', status: 'deleted' },
    ])
    expect(json('blocks.json')).toMatchObject([{ user_id: blocked.user.id }])
    expect(json('reports.json')).toMatchObject([{ target: 'user', target_id: blocked.user.id, reason: 'spam', status: 'open' }])
    expect((json('reactions.json') as object[]).map((reaction) => ({ ...reaction, created_at: undefined }))).toEqual([
      { target: 'post', target_id: ids[0], kind: 'love', created_at: undefined },
      { target: 'comment', target_id: said.id, kind: 'like', created_at: undefined },
    ])
    expect(Object.keys((json('devices.json') as object[])[0]!).sort()).toEqual(['browser', 'first_seen_at', 'last_seen_at', 'os', 'platform'])
    expect((json('security-events.json') as { type: string }[]).map((event) => event.type)).toContain('data_export_requested')

    // No hash, token or secret anywhere in it.
    const everything = [...entries.values()].map((entry) => entry.toString('latin1')).join('\n')
    const hashes = await t.db.selectFrom('users').select('hashed_password').where('id', '=', who.user.id).executeTakeFirstOrThrow()
    const secrets = [who.accessToken, who.refreshToken, second.accessToken, second.refreshToken, apiKey.key, apiKey.key.slice(0, 12), hashes.hashed_password, token]
    for (const secret of secrets) expect(everything).not.toContain(secret)
    expect(everything).not.toMatch(/\$argon2|hashed_password|token_hash|secret_hash|\b[0-9a-f]{64}\b/)

    // A new link downloads it again, once; the download is in the security log.
    const fresh = await request('POST', `/users/me/exports/${id}/link`, who)
    expect(fresh.statusCode).toBe(200)
    const again = new URL(fresh.json().url)
    expect((await t.app.inject({ url: `${again.pathname}${again.search}` })).rawPayload).toEqual(downloaded.rawPayload)
    const log = (await request('GET', '/users/me/security-events', who)).json() as { data: { type: string }[] }
    expect(log.data.filter((event) => event.type === 'data_export_downloaded')).toHaveLength(2)
  })

  it('allows one export a day (429 with Retry-After), needs a fresh session, and refuses API keys', async () => {
    const who = await seedAndLogin(t.app)
    const first = await request('POST', '/users/me/export', who)
    expect(first.statusCode).toBe(202)
    const limited = await request('POST', '/users/me/export', who)
    expectError(limited, 429, /every 24 hours/, 'export_limit')
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(86_000)
    await ready(who, first.json().id)
    expectError(await request('POST', '/users/me/export', who), 429, undefined, 'export_limit')

    // Asked for at once: one export, the others refused, whatever the order they commit in.
    const eager = await seedAndLogin(t.app)
    const together = await Promise.all(Array.from({ length: 4 }, () => request('POST', '/users/me/export', eager)))
    expect(together.map((answer) => answer.statusCode).sort()).toEqual([202, 429, 429, 429])
    for (const answer of together.filter((each) => each.statusCode === 429)) expectError(answer, 429, undefined, 'export_limit')
    expect(await t.db.selectFrom('data_exports').select('id').where('user_id', '=', eager.user.id).execute()).toHaveLength(1)

    const stale = await seedAndLogin(t.app)
    await t.db.updateTable('sessions').set({ proven_at: new Date(Date.now() - 11 * 60_000).toISOString() }).where('id', '=', sessionOf(stale.accessToken)).execute()
    expectError(await request('POST', '/users/me/export', stale), 403, undefined, 'reauthentication_required')
    const key = (await request('POST', '/api-keys/', who, { name: 'k', scopes: ['read', 'write'] })).json() as { key: string }
    expectError(await t.app.inject({ method: 'POST', url: `${V2}/users/me/export`, headers: { 'x-api-key': key.key } }), 403, undefined, 'api_key_not_allowed')
    // Someone else's export is not found.
    expectError(await request('GET', `/users/me/exports/${first.json().id}`, stale), 404, undefined, 'export_not_found')
    expectError(await request('POST', `/users/me/exports/${first.json().id}/link`, stale), 404, undefined, 'export_not_found')
  })

  it('lets links expire after 48 hours, and deletes exports with their ZIP after 7 days', async () => {
    const who = await seedAndLogin(t.app)
    const { id } = (await request('POST', '/users/me/export', who)).json()
    await ready(who, id)
    const token = await mailedToken(who.user.email)
    await t.db.updateTable('one_time_secrets').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('purpose', '=', 'data_export_download').where('user_id', '=', who.user.id).execute()
    expectError(await t.app.inject({ url: `${V2}/exports/download?token=${encodeURIComponent(token)}` }), 400, undefined, 'invalid_token')

    const row = await t.db.selectFrom('data_exports').select('storage_key').where('id', '=', id).executeTakeFirstOrThrow()
    const fresh = new URL((await request('POST', `/users/me/exports/${id}/link`, who)).json().url)
    await t.db.updateTable('data_exports').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', id).execute()
    // Past its time and not yet cleaned up: neither a new link nor one given before downloads it.
    expectError(await request('POST', `/users/me/exports/${id}/link`, who), 404, undefined, 'export_not_found')
    expectError(await t.app.inject({ url: `${fresh.pathname}${fresh.search}` }), 404, undefined, 'export_not_found')
    await t.app.services.dataExports.prune()
    expectError(await request('GET', `/users/me/exports/${id}`, who), 404, undefined, 'export_not_found')
    await waitFor(async () => {
      const object = await t.app.services.files.open(row.storage_key!)
      object?.body.destroy()
      return object === undefined
    })
  })
})

describe('with DATA_EXPORT_DOWNLOAD_URL', () => {
  it("mails the frontend's page, whose token the API's download takes", async () => {
    const frontend = await createAppWithSmtp({ PUBLIC_URL: 'http://localhost:8000', DATA_EXPORT_DOWNLOAD_URL: 'https://app.example.com/my-data?token={token}' })
    try {
      const who = await seedAndLogin(frontend.t.app)
      const asked = await frontend.t.app.inject({ method: 'POST', url: `${V2}/users/me/export`, headers: who.headers })
      expect(asked.statusCode).toBe(202)
      const [mail] = await frontend.smtp.waitFor(who.user.email, 1)
      const link = new URL(/(https:\/\/app\.example\.com\/my-data\S+)/.exec(mail!.text)![1]!)
      const downloaded = await frontend.t.app.inject({ url: `${V2}/exports/download?token=${encodeURIComponent(link.searchParams.get('token')!)}` })
      expect(downloaded.statusCode).toBe(200)
      expect(downloaded.headers['content-type']).toBe('application/zip')
    } finally {
      await frontend.close()
    }
  })
})
