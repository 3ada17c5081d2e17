// User search goes through the trigram index (FTS5 in SQLite, pg_trgm in PostgreSQL); the
// index must follow every change to names and usernames.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp, dialect } from '../../../test/helpers/app.js'
import { seedAndLogin,V1, V2 } from '../../../test/helpers/users.js'
import { SEARCH_INDEX_MERGE_AT } from './search-index.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const searchNames = async (query: string) =>
  ((await t.app.inject({ url: `${V1}/users/search?${query}` })).json() as { name: string }[]).map((user) => user.name)

describe('user search index', () => {
  it('finds new, renamed and deleted users correctly', async () => {
    const { user, headers } = await seedAndLogin(t.app, { name: 'Zebulon Quartz', username: 'zq_user' })
    expect(await searchNames('name=bulon')).toEqual(['Zebulon Quartz'])
    expect(await searchNames('name=QUART')).toEqual(['Zebulon Quartz'])

    await t.app.inject({ method: 'PATCH', url: `${V1}/users/${user.id}`, payload: { name: 'Yolanda Prism', username: 'yp_user' }, headers })
    expect(await searchNames('name=bulon')).toEqual([])
    expect(await searchNames('name=prism')).toEqual(['Yolanda Prism'])
    const byUsername = (await t.app.inject({ url: `${V2}/users/?search=yp_us` })).json()
    expect(byUsername.data.map((u: { username: string }) => u.username)).toEqual(['yp_user'])
    expect(byUsername.total_count).toBe(1)
    expect((await t.app.inject({ url: `${V2}/users/?search=zq_us` })).json().total_count).toBe(0)

    await t.app.inject({ method: 'DELETE', url: `${V1}/users/${user.id}`, headers })
    expect(await searchNames('name=prism')).toEqual([])
  })

  it('matches short and long texts the same way', async () => {
    await seedAndLogin(t.app, { name: 'Ab Cdefgh' })
    expect(await searchNames('name=b')).toContain('Ab Cdefgh')
    expect(await searchNames('name=b%20c')).toEqual(['Ab Cdefgh'])
    expect(await searchNames('name=cdefg')).toEqual(['Ab Cdefgh'])
  })

  // Each write made the FTS5 index one more segment, which every search reads: 11 segments made
  // a search 6 times slower (src/features/users/search-index.ts).
  const segments = async () =>
    Number((await sql<{ n: number }>`select count(distinct segid) as n from users_search_idx`.execute(t.db)).rows[0]?.n)
  const insertUsers = async (from: number, count: number) => {
    for (let i = from; i < from + count; i++) {
      await sql`insert into users (name, username, email, hashed_password, profile_image_url, created_at, updated_at)
        values (${`Piecewise Person ${i}`}, ${`piece_${i}`}, ${`piece${i}@example.com`}, 'x', '/media/avatars/default.svg', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`.execute(t.db)
    }
  }

  it.runIf(dialect() === 'sqlite')('merges a search index in pieces back into one, answering as before', async () => {
    await insertUsers(0, 12)
    expect(await segments()).toBeGreaterThanOrEqual(SEARCH_INDEX_MERGE_AT)
    const before = await searchNames('name=cewise')
    expect(before).toHaveLength(12)

    await t.app.services.pruneExpiredState()
    expect(await segments()).toBe(1)
    expect(await searchNames('name=cewise')).toEqual(before)
    expect((await t.app.inject({ url: `${V2}/users/?search=piece_1` })).json().total_count).toBe(3)
  })

  it.runIf(dialect() === 'sqlite')('leaves an index of fewer segments alone', async () => {
    await insertUsers(100, 2)
    const few = await segments()
    expect(few).toBeGreaterThan(1)
    expect(few).toBeLessThan(SEARCH_INDEX_MERGE_AT)
    await t.app.services.compactSearchIndex()
    expect(await segments()).toBe(few)
    expect(await searchNames('name=cewise')).toHaveLength(14)
  })

  it.runIf(dialect() === 'postgres')('has nothing to merge in PostgreSQL', async () => {
    await expect(t.app.services.pruneExpiredState()).resolves.toBeUndefined()
  })

  // Without it, every search read the GIN pending list in full until a vacuum: 27 times slower
  // after 4,000 sign-ups (2026-11-23-01-trigram-indexes-without-pending-list).
  it.runIf(dialect() === 'postgres')('keeps no pending list in PostgreSQL trigram indexes', async () => {
    const { rows } = await sql<{ name: string; options: string[] | null }>`
      select relname as name, reloptions as options from pg_class
      where oid in (to_regclass('users_name_trgm_idx'), to_regclass('users_username_trgm_idx')) order by relname`.execute(t.db)
    // A server without pg_trgm has no trigram indexes (search scans; 2026-11-21-06).
    const { rows: extensions } = await sql<{ extname: string }>`select extname from pg_extension where extname = 'pg_trgm'`.execute(t.db)
    const expected = [
      { name: 'users_name_trgm_idx', options: ['fastupdate=off'] },
      { name: 'users_username_trgm_idx', options: ['fastupdate=off'] },
    ]
    expect(rows).toEqual(extensions.length > 0 ? expected : [])
  })
})
