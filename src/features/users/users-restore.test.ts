// POST {prefix}/users/{user_id}/restore: a superuser undoes a soft delete, in both versions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin,V1, V2 } from '../../../test/helpers/users.js'
import { clockMoved } from '../../../test/helpers/wait.js'

let t: TestApp
let admin: LoggedIn
beforeAll(async () => {
  t = await createTestApp()
  admin = await seedAndLogin(t.app, {}, { superuser: true })
})
afterAll(() => t.close())

const post = (who: LoggedIn, title: string) =>
  t.app.inject({ method: 'POST', url: `${V2}/posts/`, payload: { title, text: 'body' }, headers: who.headers }).then((r) => r.json().id as number)

describe.each([V1, V2])('POST %s/users/{user_id}/restore', (prefix) => {
  it('brings the user back with the posts hidden with them, not those deleted before', async () => {
    const writer = await seedAndLogin(t.app)
    const kept = await post(writer, 'Kept post')
    const deletedEarlier = await post(writer, 'Deleted earlier')
    await t.app.inject({ method: 'DELETE', url: `${V2}/posts/${deletedEarlier}`, headers: writer.headers })
    const usersBefore = (await t.app.inject({ url: `${V2}/users/?limit=1` })).json().total_count

    await clockMoved() // the user's deletion time is later than the post's
    expect((await t.app.inject({ method: 'DELETE', url: `${prefix}/users/${writer.user.id}`, headers: admin.headers })).statusCode).toBe(200)
    expectError(await t.app.inject({ url: `${prefix}/users/${writer.user.id}` }), 404, 'User not found')
    expectError(await t.app.inject({ url: `${V2}/posts/${kept}` }), 404, 'Post not found')

    const restored = await t.app.inject({ method: 'POST', url: `${prefix}/users/${writer.user.id}/restore`, headers: admin.headers })
    expect(restored.statusCode, restored.body).toBe(200)
    expect(restored.json()).toMatchObject({ id: writer.user.id, username: writer.user.username })
    expect((await t.app.inject({ url: `${prefix}/users/${writer.user.id}` })).statusCode).toBe(200)
    expect((await t.app.inject({ url: `${V2}/posts/${kept}` })).statusCode).toBe(200)
    expectError(await t.app.inject({ url: `${V2}/posts/${deletedEarlier}` }), 404, 'Post not found')
    expect((await t.app.inject({ url: `${V2}/users/?limit=1` })).json().total_count).toBe(usersBefore)
  })

  it('ends the sessions from before the deletion: old tokens stay dead, a new login works', async () => {
    const member = await seedAndLogin(t.app)
    await t.app.inject({ method: 'DELETE', url: `${prefix}/users/${member.user.id}`, headers: admin.headers })
    await t.app.inject({ method: 'POST', url: `${prefix}/users/${member.user.id}/restore`, headers: admin.headers })
    expectError(await t.app.inject({ url: `${prefix}/users/me`, headers: member.headers }), 401, 'Not authenticated')
    const refreshed = await t.app.inject({ method: 'POST', url: `${prefix}/refresh`, payload: { refresh_token: member.refreshToken } })
    expect(refreshed.statusCode).toBe(401)
    const again = await seedLoginAs(member)
    expect((await t.app.inject({ url: `${prefix}/users/me`, headers: again })).statusCode).toBe(200)
  })

  it('is for superusers only, 404 for no such user, 409 for a live one', async () => {
    const member = await seedAndLogin(t.app)
    const victim = await seedAndLogin(t.app)
    await t.app.inject({ method: 'DELETE', url: `${prefix}/users/${victim.user.id}`, headers: victim.headers })
    expectError(await t.app.inject({ method: 'POST', url: `${prefix}/users/${victim.user.id}/restore` }), 401, 'Not authenticated')
    expectError(await t.app.inject({ method: 'POST', url: `${prefix}/users/${victim.user.id}/restore`, headers: member.headers }), 403, 'Not enough permissions')
    expectError(await t.app.inject({ method: 'POST', url: `${prefix}/users/999999/restore`, headers: admin.headers }), 404, 'User not found')
    expectError(await t.app.inject({ method: 'POST', url: `${prefix}/users/${member.user.id}/restore`, headers: admin.headers }), 409, 'User is not deleted')
    // Refused before anything is done: the live user's sessions go on.
    expect((await t.app.inject({ url: `${prefix}/users/me`, headers: member.headers })).statusCode).toBe(200)
    expectError(await t.app.inject({ method: 'POST', url: `${prefix}/users/0/restore`, headers: admin.headers }), 422)
  })
})

async function seedLoginAs(who: LoggedIn): Promise<{ authorization: string }> {
  const response = await t.app.inject({ method: 'POST', url: `${V1}/login`, payload: { username: who.user.username, password: who.user.password } })
  expect(response.statusCode, response.body).toBe(200)
  return { authorization: `Bearer ${response.json().access_token}` }
}
