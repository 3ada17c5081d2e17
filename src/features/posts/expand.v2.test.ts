// `expand` reads a page's related records in one query per relation, however many posts the
// page has and however many authors and organizations they name; a relation no post of the page
// has, or one the caller may read none of, costs no query. Who sees what is the access matrix's
// (post-access.v2.test.ts).
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { observeQueries } from '../../db/query-observer.js'

interface ExpandedPost {
  id: number
  author_id: number
  org_id: number | null
  expand?: { author?: { id: number } | null; org?: { id: number; role: string | null } | null }
}

let t: TestApp
let reader: LoggedIn
const statements: string[] = []
const marker = `expand-${Date.now()}`

beforeAll(async () => {
  // Queries are observable only where tracing is on (its exporter here keeps spans in memory).
  t = await createTestApp({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SERVICE_NAME: 'expand-test' }, undefined, { spanExporter: new InMemorySpanExporter() })
  reader = await seedAndLogin(t.app)
  const now = new Date().toISOString()
  const orgIds: number[] = []
  for (let i = 0; i < 3; i++) {
    const created = await t.app.inject({ method: 'POST', url: `${V2}/orgs`, headers: reader.headers, payload: { name: `${marker} ${i}` } })
    orgIds.push(created.json<{ id: number }>().id)
  }
  for (let i = 0; i < 6; i++) {
    const author = await seedAndLogin(t.app)
    await t.db.insertInto('org_memberships').values(orgIds.map((orgId) => ({ org_id: orgId, user_id: author.user.id, role: 'member', created_at: now }))).execute()
    for (const orgId of [orgIds[i % 3]!, null]) {
      const response = await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: author.headers, payload: { title: marker, text: 'Body', ...(orgId === null ? {} : { org_id: orgId }) } })
      expect(response.statusCode, response.body).toBe(201)
    }
  }
  observeQueries(t.db, (sql) => statements.push(sql))
})

afterAll(async () => {
  await t.close()
})

/** The page, and the statements it took that read users or organizations by a list of ids. */
async function pageWithQueries(query: string, who: LoggedIn | null = reader) {
  statements.length = 0
  const response = await t.app.inject({ url: `${V2}/posts?search=${marker}&${query}`, headers: who?.headers ?? {} })
  expect(response.statusCode, response.body).toBe(200)
  const byIds = (table: string) => statements.filter((sql) => new RegExp(`from "${table}"`).test(sql) && new RegExp(`"${table}"\\."id" in \\(|"id" in \\(`).test(sql) && !/"posts"/.test(sql)).length
  return { posts: response.json<{ data: ExpandedPost[] }>().data, users: byIds('users'), organizations: byIds('organizations') }
}

describe('expand', () => {
  it('reads the authors and organizations of a page in one query each, for 4 posts or 12', async () => {
    for (const limit of [4, 12]) {
      const { posts, users, organizations } = await pageWithQueries(`limit=${limit}&expand=author,org`)
      expect(posts).toHaveLength(limit)
      expect({ users, organizations }).toEqual({ users: 1, organizations: 1 })
      for (const post of posts) {
        expect(post.expand?.author?.id).toBe(post.author_id)
        expect(post.expand?.org?.id ?? null).toBe(post.org_id)
        if (post.org_id !== null) expect(post.expand?.org?.role).toBe('owner')
      }
    }
  })

  it('reads nothing more for a relation not asked for, nor organizations for an anonymous caller, nor anything for attachments alone', async () => {
    expect(await pageWithQueries('limit=12')).toMatchObject({ users: 0, organizations: 0 })
    expect(await pageWithQueries('limit=12&expand=attachments')).toMatchObject({ users: 0, organizations: 0 })
    const anonymous = await pageWithQueries('limit=12&expand=author,org', null)
    expect(anonymous).toMatchObject({ users: 1, organizations: 0 })
    expect(anonymous.posts.every((post) => post.expand?.org === null)).toBe(true)
    const onlyAuthor = await pageWithQueries('limit=12&expand=author')
    expect(onlyAuthor).toMatchObject({ users: 1, organizations: 0 })
    expect(onlyAuthor.posts.every((post) => post.expand !== undefined && !('org' in post.expand))).toBe(true)
  })
})
