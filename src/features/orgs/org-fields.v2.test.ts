// Custom fields on organizations through HTTP on both databases (docs/api.md "Custom fields"):
// declared in CONTENT_SCHEMA's `orgs`, given at creation (required ones must be), merged by an
// admin's edit, shown by level on every read of an organization (public to members, private to its
// admins and owners, server to superusers), written at the server level by superusers only, and
// carried by its change events with the public ones only (every member hears them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { UNINDEXED_FILTER_MAX_ROWS } from '../content-fields/index.js'

const SCHEMA = {
  orgs: {
    properties: {
      sector: { enum: ['news', 'retail'], visibility: 'public' },
      seats: { type: 'integer', minimum: 1, visibility: 'private' },
      account: { type: 'string', visibility: 'server' },
    },
    required: ['sector'],
  },
}

interface OrgBody {
  id: number
  role: string | null
  fields: Record<string, unknown>
}

let t: TestApp
let owner: LoggedIn
let admin: LoggedIn
let member: LoggedIn
let superuser: LoggedIn
let org: OrgBody

const call = (method: 'GET' | 'POST' | 'PATCH', url: string, who: LoggedIn, payload?: object) =>
  t.app.inject({ method, url, headers: who.headers, ...(payload === undefined ? {} : { payload }) })
const fieldsOf = async (url: string, who: LoggedIn) => {
  const response = await call('GET', url, who)
  expect(response.statusCode, response.body).toBe(200)
  return response.json<OrgBody>().fields
}

beforeAll(async () => {
  t = await createTestApp({ CONTENT_SCHEMA: JSON.stringify(SCHEMA) })
  owner = await seedAndLogin(t.app)
  admin = await seedAndLogin(t.app)
  member = await seedAndLogin(t.app)
  superuser = await seedAndLogin(t.app, {}, { superuser: true })
  const created = await call('POST', `${V2}/orgs`, owner, { name: 'Fielded', fields: { sector: 'news', seats: 12 } })
  expect(created.statusCode, created.body).toBe(201)
  org = created.json<OrgBody>()
  const now = new Date().toISOString()
  await t.db.insertInto('org_memberships').values([
    { org_id: org.id, user_id: admin.user.id, role: 'admin', created_at: now },
    { org_id: org.id, user_id: member.user.id, role: 'member', created_at: now },
  ]).execute()
  expect((await call('PATCH', `${V2}/orgs/${org.id}`, superuser, { fields: { account: 'a-1' } })).statusCode).toBe(200)
})

afterAll(async () => {
  await t.close()
})

describe('custom fields on organizations', () => {
  it('are given at creation, the required ones first of all, and read back by their creator, its owner', async () => {
    expect(org.fields).toEqual({ sector: 'news', seats: 12 })
    const missing = await call('POST', `${V2}/orgs`, owner, { name: 'No sector' })
    expect(missing.statusCode).toBe(422)
    const wrong = await call('POST', `${V2}/orgs`, owner, { name: 'Bad seats', fields: { sector: 'news', seats: 0 } })
    expect(wrong.json<{ errors: { loc: string[] }[] }>().errors[0]?.loc).toEqual(['body', 'fields', 'seats'])
    const server = await call('POST', `${V2}/orgs`, owner, { name: 'Own account', fields: { sector: 'news', account: 'mine' } })
    expect([server.statusCode, server.json<{ code: string }>().code]).toEqual([403, 'field_not_writable'])
  })

  it('are read by level on every read of an organization: public to members, private to admins and owners, server to superusers', async () => {
    const levels = [[member, { sector: 'news' }], [admin, { sector: 'news', seats: 12 }], [owner, { sector: 'news', seats: 12 }], [superuser, { sector: 'news', seats: 12, account: 'a-1' }]] as const
    for (const [who, expected] of levels) {
      expect(await fieldsOf(`${V2}/orgs/${org.id}`, who)).toEqual(expected)
      if (who !== superuser) {
        const mine = (await call('GET', `${V2}/orgs`, who)).json<{ data: OrgBody[] }>().data
        expect(mine.find((one) => one.id === org.id)?.fields).toEqual(expected)
      }
    }
    // The superusers' own lists: every organization, and a user's, all the fields.
    const all = (await call('GET', `${V2}/admin/orgs?limit=100`, superuser)).json<{ data: OrgBody[] }>().data
    expect(all.find((one) => one.id === org.id)?.fields).toEqual(levels[3][1])
    const members = (await call('GET', `${V2}/admin/users/${member.user.id}/orgs`, superuser)).json<{ data: OrgBody[] }>().data
    expect(members.find((one) => one.id === org.id)?.fields).toEqual(levels[3][1])
    expect(await fieldsOf(`${V2}/admin/orgs/${org.id}`, superuser)).toEqual(levels[3][1])
  })

  it("are merged by an admin's edit; members may not edit, and server fields are the superusers'", async () => {
    const own = (await call('POST', `${V2}/orgs`, owner, { name: 'Edited', fields: { sector: 'retail' } })).json<OrgBody>()
    const edit = (who: LoggedIn, fields: object) => call('PATCH', `${V2}/orgs/${own.id}`, who, { fields })
    expect((await edit(owner, { seats: 3 })).json<OrgBody>().fields).toEqual({ sector: 'retail', seats: 3 })
    expect((await edit(owner, { seats: null })).json<OrgBody>().fields).toEqual({ sector: 'retail' })
    // A required field stays: null is not a value it takes.
    expect((await edit(owner, { sector: null })).statusCode).toBe(422)
    const refused = await edit(owner, { account: 'x' })
    expect([refused.statusCode, refused.json<{ code: string }>().code]).toEqual([403, 'field_not_writable'])
    expect((await edit(superuser, { account: 'x' })).json<OrgBody>().fields).toEqual({ sector: 'retail', account: 'x' })
    await t.db.insertInto('org_memberships').values({ org_id: own.id, user_id: member.user.id, role: 'member', created_at: new Date().toISOString() }).execute()
    expect((await edit(member, { seats: 9 })).statusCode).toBe(403)
  })

  it('lose no write to another: edits of different fields at once all stay', async () => {
    const own = (await call('POST', `${V2}/orgs`, owner, { name: 'Raced', fields: { sector: 'news' } })).json<OrgBody>()
    const edits = [{ seats: 1 }, { sector: 'retail' }, { seats: 2 }, { sector: 'news' }]
    const answers = await Promise.all(edits.map((fields) => call('PATCH', `${V2}/orgs/${own.id}`, owner, { fields })))
    expect(answers.map((answer) => answer.statusCode)).toEqual(edits.map(() => 200))
    expect(Object.keys(await fieldsOf(`${V2}/orgs/${own.id}`, owner)).sort()).toEqual(['seats', 'sector'])
  })

  it("are carried by the organization's change events with the public fields only", async () => {
    const events = await t.db.selectFrom('change_events').select('data').where('subject', '=', `org:${org.id}`).where('type', 'in', ['org.created', 'org.updated']).execute()
    expect(events.map((event) => (JSON.parse(event.data) as { fields: unknown }).fields)).toEqual(events.map(() => ({ sector: 'news' })))
  })

  it('filter organization lists by column and field: private fields only where the caller is an admin or owner, server fields only for superusers', async () => {
    const filtered = async (url: string, filter: string, who: LoggedIn) => {
      const response = await call('GET', `${url}?limit=100&filter=${encodeURIComponent(filter)}`, who)
      if (response.statusCode !== 200) return { status: response.statusCode, code: response.json<{ code: string }>().code }
      return { ids: response.json<{ data: OrgBody[] }>().data.map((one) => one.id).filter((id) => id === org.id) }
    }
    const mine = `${V2}/orgs`
    expect(await filtered(mine, 'fields.sector = "news" && name ~ "field"', member)).toEqual({ ids: [org.id] })
    expect(await filtered(mine, 'fields.seats = 12', member)).toEqual({ ids: [] })
    expect(await filtered(mine, 'fields.seats != 1', member)).toEqual({ ids: [] })
    expect(await filtered(mine, 'fields.seats = 12', admin)).toEqual({ ids: [org.id] })
    expect(await filtered(mine, 'fields.account = "a-1"', owner)).toEqual({ status: 400, code: 'invalid_filter' })
    expect(await filtered(`${V2}/admin/orgs`, 'fields.account = "a-1"', superuser)).toEqual({ ids: [org.id] })
    expect(await filtered(`${V2}/admin/users/${member.user.id}/orgs`, 'fields.seats = 12', superuser)).toEqual({ ids: [org.id] })
    expect(await filtered(mine, 'require_mfa = true', owner)).toEqual({ status: 400, code: 'invalid_filter' })
  })

  it(`refuse a filter no index narrows past ${UNINDEXED_FILTER_MAX_ROWS.toLocaleString('en')} organizations (422 filter_too_broad), and take one narrowed by id or slug`, async () => {
    const now = new Date().toISOString()
    for (let batch = 0; batch < 11; batch++) {
      const rows = Array.from({ length: 1_000 }, (_, i) => ({ name: `Bulk ${batch * 1_000 + i}`, slug: `bulk-${batch * 1_000 + i}`, require_mfa: 0 as const, created_at: now, updated_at: now }))
      await t.db.insertInto('organizations').values(rows).execute()
    }
    const broad = await call('GET', `${V2}/admin/orgs?filter=${encodeURIComponent('fields.sector = "news"')}`, superuser)
    expect([broad.statusCode, broad.json<{ code: string }>().code]).toEqual([422, 'filter_too_broad'])
    const narrowed = await call('GET', `${V2}/admin/orgs?filter=${encodeURIComponent(`id = ${org.id} && fields.sector = "news"`)}`, superuser)
    expect(narrowed.json<{ data: OrgBody[] }>().data.map((one) => one.id)).toEqual([org.id])
  })
})
