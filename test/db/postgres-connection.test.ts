// The PostgreSQL pool's connection settings: DATABASE_STATEMENT_TIMEOUT_MS is sent when a
// connection opens (0 sends none, for PgBouncer, which refuses startup parameters it does not
// know), and a statement past it is cancelled rather than holding a connection.
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'

import { createTestApp, dialect } from '../helpers/app.js'

const showTimeout = async (env: Record<string, string>) => {
  const t = await createTestApp(env)
  try {
    const { rows } = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(t.db)
    return rows[0]?.statement_timeout
  } finally {
    await t.close()
  }
}

describe.skipIf(dialect() !== 'postgres')('DATABASE_STATEMENT_TIMEOUT_MS', () => {
  it('is 30 s by default, takes a value, and 0 leaves the server default', async () => {
    expect(await showTimeout({})).toBe('30s')
    expect(await showTimeout({ DATABASE_STATEMENT_TIMEOUT_MS: '1500' })).toBe('1500ms')
    expect(await showTimeout({ DATABASE_STATEMENT_TIMEOUT_MS: '0' })).toBe('0')
  })

  it('cancels a statement that runs past it', async () => {
    const t = await createTestApp({ DATABASE_STATEMENT_TIMEOUT_MS: '200' })
    try {
      await expect(sql`select pg_sleep(2)`.execute(t.db)).rejects.toThrow(/statement timeout/)
    } finally {
      await t.close()
    }
  })
})
