// The typed client (clients/typescript) against the running service, over real HTTP: sign-up,
// login, refresh, users/me, and a post created, listed, updated and deleted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from '../../clients/typescript/src/index.js'
import { createTestApp } from '../helpers/app.js'
import type { TestApp } from '../helpers/app.js'
import { seedUser } from '../helpers/users.js'

let t: TestApp
let baseUrl: string
beforeAll(async () => {
  t = await createTestApp()
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 })
})
afterAll(() => t.close())

describe('the typed client', () => {
  it('runs the main flows with typed requests and answers', async () => {
    let token: string | undefined
    const client = createClient({ baseUrl, accessToken: () => token })

    // v2 sign-up needs a logged-in caller: an administrator creates the account.
    const admin = await seedUser(t.app, {}, { superuser: true })
    const adminLogin = await client.POST('/api/v2/login', { body: { username: admin.username, password: admin.password } })
    expect(adminLogin.response.status).toBe(200)
    token = adminLogin.data?.access_token
    const created = await client.POST('/api/v2/users', {
      body: { name: 'Client User', username: 'client_user', email: 'client@example.com', password: 'typed client secret 1', accept_terms: true },
    })
    expect(created.response.status).toBe(201)
    expect(created.data?.username).toBe('client_user')

    const logged = await client.POST('/api/v2/login', { body: { username: 'client_user', password: 'typed client secret 1' } })
    expect(logged.data?.token_type).toBe('bearer')
    const refreshed = await client.POST('/api/v2/refresh', { body: { refresh_token: logged.data?.refresh_token ?? '' } })
    expect(refreshed.response.status).toBe(200)
    token = refreshed.data?.access_token

    const me = await client.GET('/api/v2/users/me')
    expect(me.data).toMatchObject({ username: 'client_user', is_verified: false, subscription_tier: null })

    const post = await client.POST('/api/v2/posts', { body: { title: 'Typed', text: 'from the client' } })
    expect(post.response.status).toBe(201)
    const postId = post.data?.id ?? 0
    const listed = await client.GET('/api/v2/posts', { params: { query: { page: 1, limit: 10, author_id: me.data?.id } } })
    expect(listed.data?.data.map((item) => item.id)).toEqual([postId])
    const updated = await client.PATCH('/api/v2/posts/{post_id}', { params: { path: { post_id: postId } }, body: { title: 'Typed again' } })
    expect(updated.data?.title).toBe('Typed again')
    const deleted = await client.DELETE('/api/v2/posts/{post_id}', { params: { path: { post_id: postId } } })
    expect(deleted.data?.message).toBe('Post deleted')
    const gone = await client.GET('/api/v2/posts/{post_id}', { params: { path: { post_id: postId } } })
    expect(gone.response.status).toBe(404)
    expect(gone.error?.detail).toBe('Post not found')
  })
})
