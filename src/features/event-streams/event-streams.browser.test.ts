// The realtime stream as a frontend on another origin uses it, in Debian's Chromium: a ticket
// bought with the bearer token, an EventSource on it that hears the user's own events and posts,
// and a reconnection with a new ticket that resumes after the last event heard.
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { openPage } from '../../../test/helpers/browser.js'
import { serveFrontend } from '../../../test/helpers/frontend.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { EVENT_DEADLINE_MS } from '../../../test/helpers/wait.js'

const chromiumPath = inject('chromiumPath')

interface Heard {
  type: string
  id: string
  data: { type: string; data: { id: number; title?: string; name?: string } }
}

describe.skipIf(!chromiumPath)('the event stream in Chromium, from another origin', () => {
  let t: TestApp
  let apiBase = ''
  let frontend: Awaited<ReturnType<typeof serveFrontend>>
  let browser: Browser
  let page: Page
  let problems: string[]
  let alice: LoggedIn

  beforeAll(async () => {
    frontend = await serveFrontend(await mkdtemp(path.join(tmpdir(), 'ups-stream-')), () => '<!doctype html><html><head><title>A feed</title><link rel="icon" href="data:,"></head><body><h1>A feed</h1></body></html>')
    t = await createTestApp({ CORS_ORIGINS: frontend.origin })
    apiBase = (await t.app.listen({ host: '127.0.0.1', port: 0 })).replace('127.0.0.1', 'localhost')
    alice = await seedAndLogin(t.app)
    ;({ browser, page, problems } = await openPage(chromiumPath, frontend.origin))
  }, 300_000)
  afterAll(async () => {
    await browser?.close()
    await t?.close()
    await frontend?.close()
  })

  /** Buys a ticket with the token and opens an EventSource on it (after `lastEventId` when given). */
  const listen = (lastEventId?: string) =>
    page.evaluate(
      async ({ api, token, lastEventId }) => {
        const answer = await fetch(`${api}/api/v2/events/ticket`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
        const { ticket } = (await answer.json()) as { ticket: string }
        const scope = globalThis as unknown as { heard: unknown[]; source?: EventSource }
        scope.heard = []
        scope.source?.close()
        const source = new EventSource(`${api}/api/v2/events/stream?ticket=${encodeURIComponent(ticket)}${lastEventId ? `&last_event_id=${lastEventId}` : ''}`)
        for (const type of ['user.updated', 'post.created']) {
          source.addEventListener(type, (event) => scope.heard.push({ type, id: (event as MessageEvent).lastEventId, data: JSON.parse((event as MessageEvent).data as string) }))
        }
        scope.source = source
        await new Promise<void>((resolve, reject) => {
          source.onopen = () => resolve()
          source.onerror = () => reject(new Error('the stream did not open'))
        })
      },
      { api: apiBase, token: alice.accessToken, lastEventId },
    )
  const heard = () => page.evaluate(() => (globalThis as unknown as { heard: Heard[] }).heard)
  const until = async (count: number) => {
    await page.waitForFunction((wanted) => (globalThis as unknown as { heard: unknown[] }).heard.length >= wanted, count, { timeout: EVENT_DEADLINE_MS })
    return heard()
  }

  it('hears the user\'s own changes and new posts, and resumes after the last one with a new ticket', async () => {
    await listen()
    await t.app.inject({ method: 'PATCH', url: `${V2}/users/${alice.user.id}`, headers: alice.headers, payload: { name: 'Alice Live' } })
    await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: alice.headers, payload: { title: 'Hello, stream', text: '…' } })
    const first = await until(2)
    expect(first.map((event) => event.type)).toEqual(['user.updated', 'post.created'])
    expect(first[0]!.data.data.name).toBe('Alice Live')
    expect(first[1]!.data.data.title).toBe('Hello, stream')
    const last = first[1]!.id
    await page.evaluate(() => (globalThis as unknown as { source: EventSource }).source.close())
    await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: alice.headers, payload: { title: 'While away', text: '…' } })
    await listen(last)
    const resumed = await until(1)
    expect(resumed.map((event) => event.data.data.title)).toEqual(['While away'])
    expect(Number(resumed[0]!.id)).toBeGreaterThan(Number(last))
    await page.evaluate(() => (globalThis as unknown as { source: EventSource }).source.close())
    expect(problems, problems.join("\n")).toEqual([])
  })
})
