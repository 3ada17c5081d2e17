// The typed client (clients/typescript) against the running service, over real HTTP: sign-up
// that logs in, paths with and without their trailing slash, defaulted parameters left out, a
// refresh on 401 done once for the app, errors as ApiError, cursor paging and logout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { Session, SignOutReason } from '../../clients/typescript/src/index.js'
import { allItems, ApiError, CHANGE_EVENT_TYPES, createClient, unwrap } from '../../clients/typescript/src/index.js'
import { CHANGE_EVENT_TYPES as SERVED_EVENT_TYPES } from '../../src/features/change-events/index.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'
import { freePort } from '../helpers/process.js'
import { codeIn, createAppWithSmtp } from '../helpers/smtp.js'
import { aWrongCode, enrolTotp, totpCode } from '../helpers/totp.js'
import { seedUser, userFields } from '../helpers/users.js'
import { waitFor } from '../helpers/wait.js'

let t: TestApp
let baseUrl: string
// The local upload URL is the service's own, on PUBLIC_URL: the app listens where it says.
let filesBaseUrl: string
beforeAll(async () => {
  const port = await freePort()
  filesBaseUrl = `http://127.0.0.1:${port}`
  t = await createTestApp({ PUBLIC_URL: filesBaseUrl })
  baseUrl = await t.app.listen({ host: '127.0.0.1', port })
})
afterAll(() => t.close())

describe('the typed client', () => {
  it('uploads a file straight to the store and completes it, counts it in the usage, and deletes it', async () => {
    const client = createClient({ baseUrl: filesBaseUrl })
    const fields = userFields()
    await client.auth.signUp({ ...fields, accept_terms: true })
    const file = await client.files.upload(new Blob(['typed upload\n'], { type: 'text/plain' }), 'notes.txt')
    expect(file).toMatchObject({ name: 'notes.txt', content_type: 'text/plain', size: 13 })
    expect(await client.files.usage()).toMatchObject({ bytes: 13, files: 1 })
    // No type known to the browser: the service sniffs it at completion.
    expect((await client.files.upload(new Blob(['%PDF-1.4\n%%EOF\n']), 'paper.pdf')).content_type).toBe('application/pdf')
    await expect(client.files.upload(new Blob(['<html><script>1</script></html>'], { type: 'text/plain' }), 'page.txt')).rejects.toMatchObject({ status: 415, code: 'unsupported_file_type' })
    await client.files.remove(file.id)
    expect(await client.files.usage()).toMatchObject({ files: 1 })
  })

  it("asks for the account's data, downloads the export with its link, then deletes the account", async () => {
    const client = createClient({ baseUrl: filesBaseUrl })
    const fields = userFields()
    await client.auth.signUp({ ...fields, locale: 'de', accept_terms: true })
    expect(await client.account.data.requestExport()).toMatchObject({ status: 'queued' })
    let latest: Awaited<ReturnType<typeof client.account.data.exports>>[number] | undefined
    await waitFor(async () => {
      ;[latest] = await client.account.data.exports()
      return latest?.status === 'ready'
    })
    const zip = await fetch(await client.account.data.downloadLink(latest!.id))
    expect(zip.headers.get('content-type')).toBe('application/zip')
    expect((await zip.arrayBuffer()).byteLength).toBe(latest!.size)
    await expect(client.account.data.requestExport()).rejects.toMatchObject({ status: 429, code: 'export_limit' })
    expect(await client.account.data.deleteAccount()).toMatchObject({ status: 'pending_deletion' })
  })

  it("listens for every change event the service sends (the stream names each)", () => {
    expect([...CHANGE_EVENT_TYPES]).toEqual([...SERVED_EVENT_TYPES])
  })

  it('signs up, reads and writes with typed requests and answers, and logs out', async () => {
    const sessions: (Session | null)[] = []
    const { api, auth } = createClient({ baseUrl, onSessionChange: (session) => sessions.push(session) })
    const fields = userFields()
    const user = await auth.signUp({ ...fields, accept_terms: true })
    expect(user).toMatchObject({ username: fields.username, is_verified: false })
    expect(auth.session?.accessToken).toBeTruthy()

    const me = await unwrap(api.GET('/api/v2/users/me'))
    expect(me).toMatchObject({ id: user.id, email: fields.email })

    const post = await unwrap(api.POST('/api/v2/posts/', { body: { title: 'Typed', text: 'from the client' } }))
    // No page or limit: their defaults apply. The path compiles with and without its slash.
    const listed = await unwrap(api.GET('/api/v2/posts', { params: { query: { author_id: user.id } } }))
    expect(listed.data.map((item) => item.id)).toEqual([post.id])
    const updated = await unwrap(api.PATCH('/api/v2/posts/{post_id}', { params: { path: { post_id: post.id } }, body: { title: 'Typed again' } }))
    expect(updated.title).toBe('Typed again')

    // The content model, typed: a Markdown post's html, a sorted list with its author inline.
    const article = await unwrap(api.POST('/api/v2/posts/', { body: { title: 'Notes', text: '# Hi\n\nFrom *my* app', format: 'markdown' } }))
    expect(article.html).toBe('<h1>Hi</h1>\n<p>From <em>my</em> app</p>\n')
    const sorted = await unwrap(api.GET('/api/v2/posts', { params: { query: { author_id: user.id, sort: 'title', expand: 'author' } } }))
    expect(sorted.data.map((item) => [item.title, item.expand?.author?.username])).toEqual([['Notes', fields.username], ['Typed again', fields.username]])

    const gone = api.GET('/api/v2/posts/{post_id}', { params: { path: { post_id: post.id + 1000 } } })
    await expect(unwrap(gone)).rejects.toMatchObject({ name: 'ApiError', status: 404, code: 'post_not_found', detail: 'Post not found' })

    await auth.logout()
    expect(auth.session).toBeNull()
    expect(sessions.at(-1)).toBeNull()
    const afterLogout = await api.GET('/api/v2/users/me')
    expect(afterLogout.response.status).toBe(401)
  })

  it("holds a post's conversation: threads page after page, replies, edits, reactions, blocks, reports and the reply mail setting", async () => {
    const writer = createClient({ baseUrl })
    const answerer = createClient({ baseUrl })
    await writer.auth.signUp({ ...userFields(), accept_terms: true })
    const them = await answerer.auth.signUp({ ...userFields(), accept_terms: true })
    const post = await unwrap(writer.api.POST('/api/v2/posts/', { body: { title: 'Talk', text: 'to me' } }))
    const said = []
    for (let i = 0; i < 5; i++) said.push(await answerer.conversation.comment(post.id, `Comment ${i}`))
    const reply = await writer.conversation.comment(post.id, 'Thanks', said[0]!.id)
    expect(reply).toMatchObject({ parent_id: said[0]!.id, text: 'Thanks' })
    // Two to a page: every thread comes, in order, the first with its reply.
    const threads = []
    for await (const thread of writer.conversation.threads(post.id, 'oldest', 2)) threads.push(thread)
    expect(threads.map((thread) => thread.text)).toEqual(said.map((comment) => comment.text))
    expect(threads[0]!.replies.map((answer) => answer.id)).toEqual([reply.id])
    const newest = []
    for await (const thread of writer.conversation.threads(post.id, 'newest')) newest.push(thread.id)
    expect(newest).toEqual(said.map((comment) => comment.id).reverse())
    const replies = []
    for await (const answer of answerer.conversation.replies(said[0]!.id, 1)) replies.push(answer.id)
    expect(replies).toEqual([reply.id])

    expect(await answerer.conversation.edit(said[1]!.id, 'Edited')).toMatchObject({ text: 'Edited' })
    expect((await answerer.conversation.react('post', post.id, 'like')).my_reactions).toEqual(['like'])
    expect((await writer.conversation.react('comment', said[1]!.id, 'love')).reaction_counts).toEqual({ love: 1 })
    expect((await writer.conversation.unreact('comment', said[1]!.id, 'love')).reaction_counts).toEqual({})
    expect(await writer.conversation.hide(said[2]!.id, 'Off topic')).toMatchObject({ status: 'hidden', hidden_reason: 'Off topic' })
    expect(await writer.conversation.unhide(said[2]!.id)).toMatchObject({ status: 'visible' })
    await answerer.conversation.remove(said[3]!.id)
    expect(await writer.conversation.get(said[3]!.id)).toMatchObject({ status: 'deleted', text: null })
    expect(await writer.conversation.get(said[4]!.id)).toMatchObject({ text: 'Comment 4' })

    await writer.conversation.blocks.block(them.id)
    expect((await writer.conversation.blocks.list()).data.map((block) => block.user_id)).toEqual([them.id])
    await expect(answerer.conversation.comment(post.id, 'Still here')).rejects.toMatchObject({ status: 403, code: 'blocked' })
    await writer.conversation.blocks.unblock(them.id)
    expect((await writer.conversation.blocks.list()).data).toEqual([])

    expect(await writer.conversation.report({ target: 'comment', id: said[4]!.id, reason: 'spam' })).toMatchObject({ target: 'comment', status: 'open' })
    await expect(writer.conversation.report({ target: 'comment', id: said[4]!.id, reason: 'spam' })).rejects.toMatchObject({ status: 409, code: 'report_exists' })
    expect(await writer.conversation.notifications.set({ reply_mail: false })).toEqual({ reply_mail: false })
    expect(await writer.conversation.notifications.get()).toEqual({ reply_mail: false })
  })

  it('refreshes an expired access token once, for every request waiting on it, and resumes from a stored refresh token', async () => {
    const fields = userFields()
    const first = createClient({ baseUrl })
    await first.auth.signUp({ ...fields, accept_terms: true })
    const refreshToken = first.auth.session?.refreshToken ?? ''
    let saved: Session | null = { accessToken: 'expired-or-forged', refreshToken, expiresAt: 0 }
    let refreshes = 0
    const counting: typeof fetch = async (input, init) => {
      if ((input instanceof Request ? input.url : String(input)).endsWith('/refresh')) refreshes += 1
      return fetch(input, init)
    }
    const { api, auth } = createClient({ baseUrl, fetch: counting, store: { load: () => saved, save: (session) => void (saved = session) } })
    const answers = await Promise.all([api.GET('/api/v2/users/me'), api.GET('/api/v2/users/me/'), api.POST('/api/v2/posts', { body: { title: 'After refresh', text: 'a body sent twice' } })])
    expect(answers.map((answer) => answer.response.status)).toEqual([200, 200, 201])
    expect(refreshes).toBe(1)
    expect(saved?.accessToken).not.toBe('expired-or-forged')
    expect(await auth.resume()).not.toBeNull()

    // A refresh token that is refused ends the session: the request's own 401 stands.
    saved = { accessToken: 'expired', refreshToken: 'not-a-refresh-token', expiresAt: 0 }
    const ended = createClient({ baseUrl, store: { load: () => saved, save: (session) => void (saved = session) } })
    expect((await ended.api.GET('/api/v2/users/me')).response.status).toBe(401)
    expect(saved).toBeNull()
  })

  it('signs out, telling the app why, when the service ends the session: a ban, a pending deletion, a refused refresh', async () => {
    const admin = await seedUser(t.app, {}, { superuser: true })
    const adminClient = createClient({ baseUrl })
    await adminClient.auth.login(admin.username, admin.password)
    for (const ending of ['account_banned', 'account_pending_deletion'] as const) {
      const fields = userFields()
      const client = createClient({ baseUrl })
      const heard: { session: Session | null; reason?: SignOutReason }[] = []
      client.auth.onChange((session, reason) => heard.push({ session, ...(reason ? { reason } : {}) }))
      const me = await client.auth.signUp({ ...fields, accept_terms: true })
      if (ending === 'account_banned') {
        await unwrap(adminClient.api.POST('/api/v2/admin/users/{user_id}/ban', { params: { path: { user_id: me.id } }, body: { reason: 'spam', public_message: 'Suspended for spam' } }))
      } else {
        // A fresh sign-up's session is fresh enough to delete the account.
        await client.account.data.deleteAccount()
      }
      const after = await client.api.GET('/api/v2/users/me')
      expect(after.response.status).toBeGreaterThanOrEqual(400)
      expect(client.auth.session).toBeNull()
      const last = heard.at(-1)!
      expect(last.session).toBeNull()
      if (ending === 'account_banned') expect(last.reason).toMatchObject({ code: 'account_banned', detail: 'Suspended for spam', banned_until: 'forever' })
      else expect(last.reason).toMatchObject({ code: 'account_pending_deletion', deletion_due_at: expect.any(String) })
    }
  })

  it('reports errors as ApiError with the code, the fields of a 422 and Retry-After, and pages by cursor', async () => {
    const { api, auth } = createClient({ baseUrl })
    const refused = await auth.login('nobody', 'wrong password').catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(ApiError)
    expect(refused).toMatchObject({ status: 401, code: 'invalid_credentials' })
    const invalid = await auth.signUp({ ...userFields(), email: 'not an email', accept_terms: true }).catch((error: unknown) => error as ApiError)
    expect(invalid).toMatchObject({ status: 422, code: 'validation_failed' })
    expect((invalid as ApiError).errors.map((error) => error.loc)).toContainEqual(['body', 'email'])

    await auth.signUp({ ...userFields(), accept_terms: true })
    for (let index = 0; index < 5; index += 1) await unwrap(api.POST('/api/v2/posts', { body: { title: `Paged ${index}`, text: 'x' } }))
    const me = await unwrap(api.GET('/api/v2/users/me'))
    const titles: string[] = []
    for await (const post of allItems((cursor) => unwrap(api.GET('/api/v2/posts/', { params: { query: { author_id: me.id, limit: 2, ...(cursor ? { cursor } : {}) } } })))) titles.push(post.title)
    expect(titles).toHaveLength(5)
  })
})

describe('the typed client signs in with a second factor', () => {
  it('throws mfa_required with the token, and finishes with a code from the app', async () => {
    const user = await seedUser(t.app)
    const { api, auth } = createClient({ baseUrl })
    await auth.login(user.username, user.password)
    const { secret, confirmedStep } = await enrolTotp(t.app, { authorization: `Bearer ${auth.session!.accessToken}` })
    await auth.logout()
    const refused = await auth.login(user.username, user.password).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(ApiError)
    expect(refused).toMatchObject({ status: 401, code: 'mfa_required', mfa: { token: expect.any(String), methods: ['totp', 'recovery_code'] } })
    await expect(auth.finishSecondFactor((refused as ApiError).mfa!.token, { code: aWrongCode(secret) })).rejects.toMatchObject({ status: 401, code: 'invalid_mfa_code' })
    const session = await auth.finishSecondFactor((refused as ApiError).mfa!.token, { code: totpCode(secret, confirmedStep + 1) })
    expect(session.accessToken).toBeTruthy()
    expect(await unwrap(api.GET('/api/v2/users/me/mfa'))).toMatchObject({ totp: { enabled: true }, recovery_codes_left: 10 })
  })
})

describe('the typed client signs in by email', () => {
  it('asks for the mail, signs in with the code, and holds the session', async () => {
    const setup = await createAppWithSmtp()
    try {
      const url = await setup.t.app.listen({ host: '127.0.0.1', port: 0 })
      const user = await seedUser(setup.t.app)
      const { api, auth } = createClient({ baseUrl: url })
      await auth.requestEmailLogin(user.email)
      const [mail] = await setup.smtp.waitFor(user.email)
      const code = codeIn(mail!)
      await expect(auth.confirmEmailLogin({ email: user.email, code: code === '000000' ? '111111' : '000000' })).rejects.toMatchObject({ status: 400, code: 'invalid_code' })
      const session = await auth.confirmEmailLogin({ email: user.email, code })
      expect(session.accessToken).toBeTruthy()
      expect(await unwrap(api.GET('/api/v2/users/me'))).toMatchObject({ id: user.id, is_verified: true })
      await expect(auth.requestEmailLogin(user.email, 'https://evil.example.net/')).rejects.toMatchObject({ status: 400, code: 'invalid_redirect' })
    } finally {
      await setup.close()
    }
  })
})
