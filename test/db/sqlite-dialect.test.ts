// SQLite statements carry their parameters as `+?` (StablePlanQueryCompiler), so that no plan
// depends on a bound value and SQLite never prepares a statement again on a run. The unary plus
// must leave every value exactly as a bare parameter would: types, column affinity, NULL, and
// the rows a query finds once ANALYZE has left STAT4 samples.
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import type { Generated } from 'kysely'
import { Kysely, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { QueuedSqliteDialect } from '../../src/db/fast-path/sqlite-dialect.js'
import SqliteDatabase from '../../src/db/sqlite-driver.js'
import { dialect } from '../helpers/app.js'

interface Tables {
  items: { id: Generated<number>; group_id: number; label: string; amount: number | null; payload: Buffer | null }
  groups: { id: number; name: string }
}

let directory: string
let sqlite: InstanceType<typeof SqliteDatabase>
let db: Kysely<Tables>
beforeAll(async () => {
  if (dialect() !== 'sqlite') return
  directory = mkdtempSync(path.join(os.tmpdir(), 'ups-dialect-'))
  sqlite = new SqliteDatabase(path.join(directory, 'test.db'))
  db = new Kysely<Tables>({ dialect: new QueuedSqliteDialect(sqlite) })
  sqlite.exec(`create table groups (id integer primary key, name text not null);
    create table items (id integer primary key, group_id integer not null, label text not null, amount real, payload blob);
    create index items_group_id_idx on items (group_id, id);`)
  await db.insertInto('groups').values([{ id: 1, name: 'small' }, { id: 2, name: 'large' }]).execute()
  // Skewed on purpose: STAT4 samples then differ between the two groups.
  const rows = Array.from({ length: 600 }, (_, index) => ({ group_id: index < 10 ? 1 : 2, label: `item ${index + 1}`, amount: index % 7 === 0 ? null : index / 4, payload: null }))
  for (let start = 0; start < rows.length; start += 100) await db.insertInto('items').values(rows.slice(start, start + 100)).execute()
  sqlite.exec('analyze')
})
afterAll(async () => {
  if (dialect() !== 'sqlite') return
  await db.destroy()
  rmSync(directory, { recursive: true, force: true })
})

// SQLite alone: the PostgreSQL project needs no second run of it.
describe.runIf(dialect() === 'sqlite')('the SQLite dialect', () => {
  it('writes every parameter with a unary plus, LIMIT and OFFSET included', () => {
    const { sql: text, parameters } = db
      .selectFrom('items')
      .innerJoin('groups', 'groups.id', 'items.group_id')
      .select(['items.id', 'groups.name'])
      .where('items.group_id', '=', 1)
      .where('items.label', 'in', ['a', 'b'])
      .limit(5)
      .offset(2)
      .compile()
    expect(parameters).toEqual([1, 'a', 'b', 5, 2])
    expect(text.match(/\+\?/g)).toHaveLength(5)
    expect(text).not.toMatch(/(?<!\+)\?/)
  })

  it('keeps values, types and column affinity as a bare parameter does', async () => {
    const payload = Buffer.from([0, 1, 2, 255])
    const inserted = await db.insertInto('items').values({ group_id: 1, label: '007', amount: 2.5, payload }).returning(['id', 'label', 'amount', 'payload']).executeTakeFirstOrThrow()
    expect(inserted).toMatchObject({ label: '007', amount: 2.5 })
    expect(Buffer.compare(inserted.payload as Buffer, payload)).toBe(0)
    const bare = sqlite.prepare('select id from items where id = ?').get(String(inserted.id))
    // Text against an integer column is compared as a number, with the plus as without it.
    const plus = await sql<{ id: number }>`select id from items where id = ${String(inserted.id)}`.execute(db)
    expect(plus.rows).toEqual([bare])
    const nulls = await db.selectFrom('items').select('id').where('amount', 'is', null).where('group_id', '=', 1).execute()
    expect(nulls.length).toBeGreaterThan(0)
    expect(await sql<{ value: unknown }>`select ${null} as value`.execute(db)).toMatchObject({ rows: [{ value: null }] })
    expect(await sql<{ value: unknown }>`select ${9_007_199_254_740_991} as value`.execute(db)).toMatchObject({ rows: [{ value: 9_007_199_254_740_991 }] })
  })

  it('finds the same rows as bare parameters once ANALYZE has left STAT4 samples', async () => {
    const joined = (groupId: number, limit: number) =>
      db
        .selectFrom('items')
        .innerJoin('groups', 'groups.id', 'items.group_id')
        .select(['items.id', 'items.label', 'groups.name'])
        .where('items.group_id', '=', groupId)
        .orderBy('items.id')
        .limit(limit)
    for (const [groupId, limit] of [[1, 3], [2, 50], [1, 100], [3, 5]] as const) {
      const compiled = joined(groupId, limit).compile()
      const bare = sqlite.prepare(compiled.sql.replaceAll('+?', '?')).all(...compiled.parameters)
      expect(await joined(groupId, limit).execute()).toEqual(bare)
    }
  })
})
