// Reply mail over a real SMTP server, on both databases: the post's author and the answered
// comment's author are told, in their language; never of their own words, never by someone they
// blocked, not when they turned it off, and once an hour at most per post.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import type { TestSmtpServer } from '../../../test/helpers/smtp.js'
import { createAppWithSmtp } from '../../../test/helpers/smtp.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { drained } from '../../../test/helpers/wait.js'

let t: TestApp
let smtp: TestSmtpServer
let close: () => Promise<void>

const send = (who: LoggedIn, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  t.app.inject({ method, url: `${V2}${url}`, headers: who.headers, ...(payload === undefined ? {} : { payload }) })

async function newPost(who: LoggedIn, title: string): Promise<number> {
  return (await send(who, 'POST', '/posts', { title, text: 'Say something' })).json<{ id: number }>().id
}
async function comment(who: LoggedIn, postId: number, text: string, parentId?: number): Promise<number> {
  const response = await send(who, 'POST', `/posts/${postId}/comments`, { text, ...(parentId === undefined ? {} : { parent_id: parentId }) })
  expect(response.statusCode, response.body).toBe(201)
  return response.json<{ id: number }>().id
}
const mailsTo = (who: LoggedIn) => smtp.messages.filter((mail) => mail.to.includes(who.user.email))

beforeAll(async () => {
  ;({ smtp, t, close } = await createAppWithSmtp())
})

afterAll(async () => {
  await close()
})

describe('reply mail', () => {
  it("tells the post's author and the answered comment's author, in their language, once an hour per post", async () => {
    const author = await seedAndLogin(t.app)
    const first = await seedAndLogin(t.app)
    const replier = await seedAndLogin(t.app)
    await t.db.updateTable('users').set({ locale: 'fr' }).where('id', '=', first.user.id).execute()
    const postId = await newPost(author, 'Cats or dogs')
    const top = await comment(first, postId, 'Cats, clearly')
    const [toAuthor] = await smtp.waitFor(author.user.email, 1)
    expect(toAuthor!.subject).toBe(`${first.user.name} replied to you`)
    expect(toAuthor!.text).toContain('Cats or dogs')
    expect(toAuthor!.text).toContain('Cats, clearly')
    await comment(replier, postId, 'Dogs, obviously', top)
    const [toFirst] = await smtp.waitFor(first.user.email, 1)
    expect(toFirst!.subject).toBe(`${replier.user.name} vous a répondu`)
    // The author heard of this post within the hour: the second reply is not mailed to them again.
    await drained(t.app, 'mail')
    expect(mailsTo(author)).toHaveLength(1)
    // Nobody is told of their own words.
    await comment(first, postId, 'Still cats', top)
    await drained(t.app, 'mail')
    expect(mailsTo(first)).toHaveLength(1)
  })

  it('stays quiet when the recipient turned it off, or blocked the one who replied', async () => {
    const quiet = await seedAndLogin(t.app)
    const blocking = await seedAndLogin(t.app)
    const replier = await seedAndLogin(t.app)
    expect((await send(quiet, 'GET', '/users/me/notifications')).json()).toEqual({ reply_mail: true })
    expect((await send(quiet, 'PATCH', '/users/me/notifications', { reply_mail: false })).json()).toEqual({ reply_mail: false })
    expect((await send(quiet, 'GET', '/users/me/notifications')).json()).toEqual({ reply_mail: false })
    const quietPost = await newPost(quiet, 'Do not disturb')
    const blockingPost = await newPost(blocking, 'Not you')
    const ownComment = await comment(blocking, quietPost, 'On the quiet post')
    expect((await send(blocking, 'POST', '/users/me/blocks', { user_id: replier.user.id })).statusCode).toBe(201)
    await comment(replier, quietPost, 'Hello?')
    // The blocked replier cannot answer the blocker's comment at all; on the quiet post, a reply to someone else's thread.
    expect((await send(replier, 'POST', `/posts/${quietPost}/comments`, { text: 'Hi', parent_id: ownComment })).statusCode).toBe(403)
    expect((await send(replier, 'POST', `/posts/${blockingPost}/comments`, { text: 'Hi' })).statusCode).toBe(403)
    await drained(t.app, 'mail')
    expect(mailsTo(quiet)).toEqual([])
    // Refused before anything was written, the blocked replier's attempts mailed nobody.
    expect(mailsTo(blocking)).toEqual([])
  })
})
