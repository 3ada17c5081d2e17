// PostgreSQL's timestamptz text goes straight to ISO-8601 (src/db/pg-timestamps.ts): it must give
// exactly what pg's own Date and Date#toISOString gave, for every form the server sends.
import pg from 'pg'
import { describe, expect, it } from 'vitest'

import { timestamptzToIso } from '../../src/db/fast-path/pg-timestamps.js'
import { findUserById } from '../../src/features/users/users.repository.js'
import { createTestApp, dialect } from '../helpers/app.js'
import { seedUser } from '../helpers/users.js'

const viaDate = (text: string) => (pg.types.getTypeParser(1184, 'text')(text) as Date).toISOString()

describe('timestamptz text to ISO-8601', () => {
  it.each([
    ['2026-11-23 04:00:00.123456+00', '2026-11-23T04:00:00.123Z'],
    ['2026-11-23 04:00:00.999999+00', '2026-11-23T04:00:00.999Z'],
    ['2026-11-23 04:00:00.1+00', '2026-11-23T04:00:00.100Z'],
    ['2026-11-23 04:00:00.12+00', '2026-11-23T04:00:00.120Z'],
    ['2026-11-23 04:00:00+00', '2026-11-23T04:00:00.000Z'],
    ['1999-12-31 23:59:59.5+00', '1999-12-31T23:59:59.500Z'],
  ])('%s in a UTC session', (text, iso) => {
    expect(timestamptzToIso(text)).toBe(iso)
    expect(timestamptzToIso(text)).toBe(viaDate(text))
  })

  it.each(['2026-11-23 05:30:00.25+05:30', '2026-11-22 23:00:00-05', '2026-11-23 04:00:00+00:30', '0044-03-15 12:00:00+00 BC', '12026-01-01 00:00:00+00'])(
    '%s (another zone or an unusual year) goes through pg’s parser',
    (text) => {
      expect(timestamptzToIso(text)).toBe(viaDate(text))
    },
  )

  it('agrees with pg’s Date for random instants', () => {
    for (let i = 0; i < 1000; i++) {
      const date = new Date(Date.UTC(1970, 0, 1) + Math.floor(Math.random() * 4e12))
      const micros = String(Math.floor(Math.random() * 1e6)).padStart(6, '0').replace(/0+$/, '')
      const text = `${date.toISOString().slice(0, 19).replace('T', ' ')}${micros ? `.${micros}` : ''}+00`
      expect(timestamptzToIso(text)).toBe(viaDate(text))
    }
  })
})

describe.runIf(dialect() === 'postgres')('rows read from PostgreSQL', () => {
  it('carry their timestamps as ISO-8601 text, as on SQLite, and the API shows the same', async () => {
    const t = await createTestApp()
    try {
      const user = await seedUser(t.app)
      const row = await findUserById(t.db, user.id)
      expect(row?.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      const shown = await t.app.inject({ method: 'GET', url: `/api/v2/users/${user.id}` })
      expect(shown.json().created_at).toBe(row?.created_at)
    } finally {
      await t.close()
    }
  })
})
