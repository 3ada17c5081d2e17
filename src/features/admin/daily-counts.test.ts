// The trigger-maintained sign-ups and logins per UTC day behind the admin overview always equal
// a real count: through the API, for a bulk insert, and for rows that existed before the
// migration (it counts them once).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { login, seedUser, userFields,V2 } from '../../../test/helpers/users.js'
import { migrateTo, migrateToLatest } from '../../db/migrate.js'
import { toIsoString } from '../../shared/timestamps.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const perDay = (rows: { created_at: Date | string }[]) => {
  const days: Record<string, number> = {}
  for (const row of rows) {
    const day = toIsoString(row.created_at).slice(0, 10)
    days[day] = (days[day] ?? 0) + 1
  }
  return days
}

async function realCounts() {
  const users = await t.db.selectFrom('users').select('created_at').execute()
  const logins = await t.db.selectFrom('security_events').select('created_at').where('type', '=', 'login_succeeded').execute()
  return { sign_ups: perDay(users), logins: perDay(logins) }
}

async function keptCounts() {
  const rows = await t.db.selectFrom('daily_counts').select(['name', 'day', 'count']).execute()
  const kept: Record<string, Record<string, number>> = { sign_ups: {}, logins: {} }
  for (const row of rows) (kept[row.name] ??= {})[row.day] = Number(row.count)
  return kept
}

describe('daily counts', () => {
  it('follow sign-ups and successful logins, not failed ones', async () => {
    const user = await seedUser(t.app)
    await login(t.app, user.username, user.password)
    await login(t.app, user.username, user.password)
    await t.app.inject({ method: 'POST', url: `${V2}/login`, payload: { username: user.username, password: 'wrong password here' } })
    const kept = await keptCounts()
    expect(kept).toEqual(await realCounts())
    expect(Object.values(kept.logins ?? {}).reduce((sum, count) => sum + count, 0)).toBe(2)
  })

  it('count a bulk insert of users made in other days', async () => {
    const rows = ['2026-01-01T10:00:00.000Z', '2026-01-01T23:59:59.999Z', '2026-01-02T00:00:00.000Z'].map((createdAt) => {
      const fields = userFields()
      return { name: fields.name, username: fields.username, email: fields.email, hashed_password: 'x', profile_image_url: '/x.png', created_at: createdAt, updated_at: createdAt }
    })
    await t.db.insertInto('users').values(rows).execute()
    const kept = await keptCounts()
    expect(kept.sign_ups?.['2026-01-01']).toBe(2)
    expect(kept.sign_ups?.['2026-01-02']).toBe(1)
    expect(kept).toEqual(await realCounts())
  })

  it('are counted from the existing rows when the migration runs', async () => {
    const down = await migrateTo(t.db, '2026-11-22-03-rate-limit-rules-and-api-keys')
    expect(down.error).toBeUndefined()
    expect(down.results?.map((result) => result.migrationName)).toContain('2026-11-22-04-admin-overview')
    // A row as the schema of that time takes it (the service of today writes tables that do not exist yet).
    const fields = userFields()
    const now = new Date().toISOString()
    await t.db.insertInto('users').values({ name: fields.name, username: fields.username, email: fields.email, hashed_password: 'x', profile_image_url: '/x.png', created_at: now, updated_at: now }).execute()
    await migrateToLatest(t.db)
    expect(await keptCounts()).toEqual(await realCounts())
  })
})
