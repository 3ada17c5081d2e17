// One client's searches must not hold up everyone else (SQLite runs a query on the thread that
// asks for it). A text with LIKE wildcards is answered from the trigram index; a text too short
// for it, which must read the whole table, is read off the event loop; and a search's total is
// counted no further than 10,000.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp, dialect } from '../../../test/helpers/app.js'
import { completedAtLeast, completedDuring, quickRequestMs } from '../../../test/helpers/pace.js'
import { V1, V2 } from '../../../test/helpers/users.js'

const USERS = 60_000
let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ ANONYMOUS_RATE_LIMIT: '1000000/60' })
  const now = new Date().toISOString()
  await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${USERS})
    insert into users (name, username, email, hashed_password, profile_image_url, created_at, updated_at)
    select 'Person ' || i, 'p' || i, 'p' || i || '@example.com', 'x', '/media/avatars/default.svg', ${now}, ${now} from n`.execute(t.db)
}, 300_000)
afterAll(() => t.close())



describe('searching a large table', () => {
  it('answers other requests while a search too short for the index reads every row', async () => {
    const quickMs = await quickRequestMs(t.app, `${V2}/users/1`)
    const searches = Promise.all([1, 2, 3].map(() => t.app.inject({ url: `${V2}/users/?search=zq` })))
    const { completed, inFlightMs } = await completedDuring(t.app, `${V2}/users/1`, searches)
    for (const answer of await searches) expect(answer.json()).toMatchObject({ total_count: 0, data: [] })
    const expected = completedAtLeast(inFlightMs, quickMs)
    if (dialect() === 'sqlite') expect(completed, `${completed} in ${Math.round(inFlightMs)} ms at ${quickMs.toFixed(1)} ms a request`).toBeGreaterThanOrEqual(expected)
  })

  it('finds literal wildcards through the index, in both versions', async () => {
    await t.db.updateTable('users').set({ name: 'Ann 100%_done' }).where('username', '=', 'p42').execute()
    const v2 = await t.app.inject({ url: `${V2}/users/?search=${encodeURIComponent('0%_d')}` })
    expect(v2.json()).toMatchObject({ total_count: 1, data: [expect.objectContaining({ username: 'p42' })] })
    const v1 = await t.app.inject({ url: `${V1}/users/search?name=${encodeURIComponent('%_DO')}` })
    expect(v1.json()).toEqual([expect.objectContaining({ username: 'p42' })])
  })

  it('counts a search no further than 10,000 matches', async () => {
    const answer = await t.app.inject({ url: `${V2}/users/?search=person&limit=5` })
    expect(answer.json()).toMatchObject({ total_count: 10_000, has_more: true })
    expect(answer.json().data).toHaveLength(5)
    // Deeper than the cap, the count reaches past the page, so has_more still tells the truth.
    const deep = await t.app.inject({ url: `${V2}/users/?search=person&limit=100&page=150` })
    expect(deep.json()).toMatchObject({ has_more: true, total_count: 15_001 })
    const last = await t.app.inject({ url: `${V2}/users/?search=person&limit=100&page=${USERS / 100}` })
    // Every user but the one renamed above is a "Person".
    expect(last.json()).toMatchObject({ has_more: false, total_count: USERS - 1 })
  })
})
