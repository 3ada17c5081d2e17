// The SQLite driver fits the running Node.js: better-sqlite3 13 (Node-API 10, prebuilt) where
// Node-API 10 exists, 12 (compiled at install) on Node 20. CI runs the SQLite suite on Node 20
// and on Node 24; on Node 24 with 12 that suite's servers aborted (docs/adr/0012-backups-pgbouncer-and-traces.md).
import { createRequire } from 'node:module'

import { describe, expect, it } from 'vitest'

import SqliteDatabase, { NODE_API_OF_CURRENT_DRIVER, sqliteDriverPackage } from '../../src/db/sqlite-driver.js'

const require = createRequire(import.meta.url)
const versionOf = (name: string) => (require(`${name}/package.json`) as { version: string }).version

describe('the SQLite driver', () => {
  it('is better-sqlite3 13 with Node-API 10, else the compiled 12', () => {
    const nodeApi = Number(process.versions.napi)
    if (nodeApi >= NODE_API_OF_CURRENT_DRIVER) {
      expect(sqliteDriverPackage).toBe('better-sqlite3')
      expect(versionOf('better-sqlite3')).toMatch(/^13\./)
    } else {
      expect(sqliteDriverPackage).toBe('better-sqlite3-node20')
      expect(versionOf('better-sqlite3-node20')).toMatch(/^12\./)
    }
  })

  it('opens a database and answers', () => {
    const db = new SqliteDatabase(':memory:')
    expect(db.prepare('select sqlite_version() as version').get()).toMatchObject({ version: expect.stringMatching(/^3\./) })
    db.close()
  })
})
