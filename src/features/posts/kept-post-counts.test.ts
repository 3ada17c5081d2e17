// The counts a list page reads instead of counting rows stay equal to counts of the rows through
// any sequence of writes, on both databases: an organization's posts by visibility and status
// (org_post_counts), through posts written, moved between organizations, made public or private,
// published or taken back, deleted softly (one by one, or all of an author's at once as a deleted
// account hides them), restored and removed; and each post's ready files (posts.attachment_count),
// through files attached, detached, made ready and removed, and posts removed.
import { randomUUID } from 'node:crypto'

import fc from 'fast-check'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { POST_STATUSES, VISIBILITIES } from './post-policy.js'

let t: TestApp
let authors: LoggedIn[]
let orgIds: number[]

beforeAll(async () => {
  t = await createTestApp()
  authors = [await seedAndLogin(t.app), await seedAndLogin(t.app)]
  orgIds = []
  for (const name of ['Counted one', 'Counted two']) {
    orgIds.push(((await t.app.inject({ method: 'POST', url: `${V2}/orgs`, headers: authors[0]!.headers, payload: { name } })).json() as { id: number }).id)
  }
})
afterAll(() => t.close())

const org = fc.option(fc.integer({ min: 0, max: 1 }), { nil: null })
const change = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), author: fc.integer({ min: 0, max: 1 }), org, visibility: fc.constantFrom(...VISIBILITIES), status: fc.constantFrom(...POST_STATUSES), deleted: fc.boolean() }),
  fc.record({ kind: fc.constant('move' as const), pick: fc.nat(), org }),
  fc.record({ kind: fc.constant('reshape' as const), pick: fc.nat(), visibility: fc.constantFrom(...VISIBILITIES), status: fc.constantFrom(...POST_STATUSES) }),
  fc.record({ kind: fc.constant('soft-delete' as const), pick: fc.nat(), deleted: fc.boolean() }),
  fc.record({ kind: fc.constant('hide-author' as const), author: fc.integer({ min: 0, max: 1 }), deleted: fc.boolean() }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
)
type Change = typeof change extends fc.Arbitrary<infer T> ? T : never

async function apply(step: Change): Promise<void> {
  const flag = (value: boolean) => (value ? 1 : 0)
  const ids = (await t.db.selectFrom('posts').select('id').orderBy('id').execute()).map((row) => row.id)
  const picked = 'pick' in step && ids.length > 0 ? ids[step.pick % ids.length]! : undefined
  const now = new Date().toISOString()
  switch (step.kind) {
    case 'insert':
      await t.db
        .insertInto('posts')
        .values({ author_id: authors[step.author]!.user.id, title: 'Counted', slug: `counted-${randomUUID()}`, slug_scope: 'tests', text: 'x', visibility: step.visibility, status: step.status, org_id: step.org === null ? null : orgIds[step.org]!, is_deleted: flag(step.deleted), created_at: now, updated_at: now })
        .execute()
      return
    case 'move':
      if (picked !== undefined) await t.db.updateTable('posts').set({ org_id: step.org === null ? null : orgIds[step.org]! }).where('id', '=', picked).execute()
      return
    case 'reshape':
      if (picked !== undefined) await t.db.updateTable('posts').set({ visibility: step.visibility, status: step.status }).where('id', '=', picked).execute()
      return
    case 'soft-delete':
      if (picked !== undefined) await t.db.updateTable('posts').set({ is_deleted: flag(step.deleted) }).where('id', '=', picked).execute()
      return
    case 'hide-author':
      await t.db.updateTable('posts').set({ is_deleted: flag(step.deleted) }).where('author_id', '=', authors[step.author]!.user.id).execute()
      return
    case 'remove':
      if (picked !== undefined) await t.db.deleteFrom('posts').where('id', '=', picked).execute()
  }
}

const kept = async () =>
  (await t.db.selectFrom('org_post_counts').select(['org_id', 'visibility', 'status', 'count']).where('count', '<>', 0).orderBy(['org_id', 'visibility', 'status']).execute()).map((row) => ({ ...row, count: Number(row.count) }))

const counted = async () =>
  (
    await t.db
      .selectFrom('posts')
      .select(['org_id', 'visibility', 'status', sql<number | string>`count(*)`.as('count')])
      .where('org_id', 'is not', null)
      .where('is_deleted', '=', 0)
      .groupBy(['org_id', 'visibility', 'status'])
      .orderBy(['org_id', 'visibility', 'status'])
      .execute()
  ).map((row) => ({ ...row, count: Number(row.count) }))

describe("an organization's kept post counts", () => {
  it('equal a count of its live posts after any sequence of writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(change, { maxLength: 25 }), async (changes) => {
        await t.db.deleteFrom('posts').execute()
        for (const step of changes) await apply(step)
        expect(await kept()).toEqual(await counted())
      }),
      { numRuns: 30 },
    )
  }, 300_000)
})

const fileChange = fc.oneof(
  fc.record({ kind: fc.constant('upload' as const), pick: fc.nat(), attached: fc.boolean(), ready: fc.boolean() }),
  fc.record({ kind: fc.constant('attach' as const), file: fc.nat(), pick: fc.nat(), attached: fc.boolean() }),
  fc.record({ kind: fc.constant('ready' as const), file: fc.nat() }),
  fc.record({ kind: fc.constant('delete-file' as const), file: fc.nat() }),
  fc.record({ kind: fc.constant('remove-post' as const), pick: fc.nat() }),
)
type FileChange = typeof fileChange extends fc.Arbitrary<infer T> ? T : never
let uploads = 0

async function applyToFiles(step: FileChange): Promise<void> {
  const posts = (await t.db.selectFrom('posts').select('id').orderBy('id').execute()).map((row) => row.id)
  const files = (await t.db.selectFrom('files').select('id').orderBy('id').execute()).map((row) => row.id)
  const post = 'pick' in step && posts.length > 0 ? posts[step.pick % posts.length]! : undefined
  const file = 'file' in step && files.length > 0 ? files[step.file % files.length]! : undefined
  switch (step.kind) {
    case 'upload':
      uploads += 1
      await t.db
        .insertInto('files')
        .values({ owner_id: authors[0]!.user.id, post_id: step.attached ? (post ?? null) : null, name: 'f.txt', content_type: 'text/plain', size: 1, storage_key: `counted/${uploads}-${Date.now()}`, status: step.ready ? 'ready' : 'pending', upload_kind: 'form', created_at: new Date().toISOString() })
        .execute()
      return
    case 'attach':
      if (file !== undefined) await t.db.updateTable('files').set({ post_id: step.attached ? (post ?? null) : null }).where('id', '=', file).execute()
      return
    case 'ready':
      if (file !== undefined) await t.db.updateTable('files').set({ status: 'ready' }).where('id', '=', file).execute()
      return
    case 'delete-file':
      if (file !== undefined) await t.db.deleteFrom('files').where('id', '=', file).execute()
      return
    case 'remove-post':
      if (post !== undefined) await t.db.deleteFrom('posts').where('id', '=', post).execute()
  }
}

describe("a post's kept count of files", () => {
  it("equals a count of its ready files after any sequence of writes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(change, { minLength: 3, maxLength: 8 }), fc.array(fileChange, { maxLength: 25 }), async (postChanges, fileChanges) => {
        await t.db.deleteFrom('files').execute()
        await t.db.deleteFrom('posts').execute()
        for (const step of postChanges) await apply(step)
        for (const step of fileChanges) await applyToFiles(step)
        const kept = (await t.db.selectFrom('posts').select(['id', 'attachment_count']).orderBy('id').execute()).map((row) => ({ id: row.id, count: Number(row.attachment_count) }))
        const ready = await t.db.selectFrom('files').select(['post_id', sql<number | string>`count(*)`.as('count')]).where('status', '=', 'ready').where('post_id', 'is not', null).groupBy('post_id').execute()
        const counted = new Map(ready.map((row) => [row.post_id, Number(row.count)]))
        expect(kept).toEqual(kept.map(({ id }) => ({ id, count: counted.get(id) ?? 0 })))
      }),
      { numRuns: 30 },
    )
  }, 300_000)
})
