// The organizations' access matrix, generated from the route table: every route on one
// organization (its config's `orgAccess`, which orgRoute sets) is called by a non-member, a
// member, an admin, an owner, a superuser, an owner's API key, and a member of another
// organization reaching this one by id and by slug. Each answer is the one its role earns, and a
// status the route documents. A route added next year is in the walk without being listed here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import type { OrgRole } from './org.js'
import { roleAtLeast } from './org.js'

interface OrgOperation {
  method: string
  /** The route's URL as registered, with `:param` placeholders. */
  url: string
  required: OrgRole
  documented: Set<number>
}

type Caller = 'non-member' | 'other org, by id' | 'other org, by slug' | OrgRole | 'superuser' | "owner's API key"
const CALLERS: Caller[] = ['non-member', 'other org, by id', 'other org, by slug', 'member', 'admin', 'owner', 'superuser', "owner's API key"]

let t: TestApp
let people: Record<'owner' | 'admin' | 'member' | 'outsider' | 'superuser', LoggedIn>
let ownerKey: string
let operations: OrgOperation[]
/** An organization the outsider belongs to: the cross-organization calls come from its member. */
let otherOrg: { id: number; slug: string }

beforeAll(async () => {
  t = await createTestApp({ INVITATION_RATE_LIMIT: '100000/3600', ORGS_PER_USER: '1000' })
  people = {
    owner: await seedAndLogin(t.app),
    admin: await seedAndLogin(t.app),
    member: await seedAndLogin(t.app),
    outsider: await seedAndLogin(t.app),
    superuser: await seedAndLogin(t.app, {}, { superuser: true }),
  }
  ownerKey = (await t.app.inject({ method: 'POST', url: `${V2}/api-keys/`, headers: people.owner.headers, payload: { name: 'matrix', scopes: ['read', 'write'] } })).json().key
  otherOrg = (await t.app.inject({ method: 'POST', url: `${V2}/orgs`, headers: people.outsider.headers, payload: { name: 'Elsewhere' } })).json()
  const document = (await t.app.inject({ url: `${V2}/openapi.json` })).json() as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }
  operations = t.app.routeTable
    .filter((entry) => entry.config.orgAccess !== undefined && entry.method !== 'HEAD')
    .map((entry) => {
      const path = entry.url.replace(/:(\w+)/g, '{$1}')
      const responses = document.paths[path]?.[entry.method.toLowerCase()]?.responses ?? {}
      return { method: entry.method, url: entry.url, required: entry.config.orgAccess as OrgRole, documented: new Set(Object.keys(responses).map(Number)) }
    })
})
afterAll(() => t.close())

/** A fresh organization for each call (calls delete, leave and demote), with its three members. */
async function freshOrg(): Promise<{ id: number; slug: string }> {
  const org = (await t.app.inject({ method: 'POST', url: `${V2}/orgs`, headers: people.owner.headers, payload: { name: 'Matrix' } })).json() as { id: number; slug: string }
  await t.db.insertInto('org_memberships').values([
    { org_id: org.id, user_id: people.admin.user.id, role: 'admin', created_at: new Date().toISOString() },
    { org_id: org.id, user_id: people.member.user.id, role: 'member', created_at: new Date().toISOString() },
  ]).execute()
  return org
}

function callAs(caller: Caller, operation: OrgOperation, org: { id: number; slug: string }) {
  const who = caller === 'member' || caller === 'admin' || caller === 'owner' || caller === 'superuser' ? people[caller] : caller === "owner's API key" ? people.owner : people.outsider
  const key = caller === 'other org, by slug' ? org.slug : String(org.id)
  // A member route on a member: their own id (leaving is anyone's); an invitation: one that does not exist.
  const url = operation.url.replace(':org', key).replace(':user_id', String(who.user.id)).replace(':invitation_id', '999999')
  const headers = caller === "owner's API key" ? { 'x-api-key': ownerKey } : who.headers
  return t.app.inject({ method: operation.method as 'GET', url, headers, ...(['GET', 'DELETE'].includes(operation.method) ? {} : { payload: {} }) })
}

/** The code a caller's answer must carry, or undefined when the organization lets them through to the route itself. */
function refusal(caller: Caller, operation: OrgOperation): string | undefined {
  if (caller === "owner's API key") return operation.method === 'GET' ? undefined : 'api_key_not_allowed'
  if (caller === 'superuser') return undefined
  if (caller === 'member' || caller === 'admin' || caller === 'owner') return roleAtLeast(caller, operation.required) ? undefined : 'org_role_required'
  return 'org_not_found'
}

const ACCESS_CODES = new Set(['org_not_found', 'org_role_required', 'api_key_not_allowed', 'not_authenticated', 'mfa_enrolment_required'])

describe('the organizations’ access matrix', () => {
  it('covers every route on one organization', () => {
    expect(operations.map((operation) => `${operation.method} ${operation.url}`).sort()).toEqual(
      expect.arrayContaining(['GET /api/v2/orgs/:org', 'PATCH /api/v2/orgs/:org', 'DELETE /api/v2/orgs/:org', 'GET /api/v2/orgs/:org/members', 'POST /api/v2/orgs/:org/invitations']),
    )
  })

  it('answers each caller as their role earns, with a documented status', async () => {
    const wrong: string[] = []
    for (const operation of operations) {
      for (const caller of CALLERS) {
        const org = await freshOrg()
        const response = await callAs(caller, operation, org)
        const code = (response.json() as { code?: string }).code
        const expected = refusal(caller, operation)
        const label = `${operation.method} ${operation.url} as ${caller}: ${response.statusCode} ${code ?? ''}`
        if (expected !== undefined ? code !== expected : code !== undefined && ACCESS_CODES.has(code)) wrong.push(`${label} (expected ${expected ?? 'the route itself'})`)
        if (!operation.documented.has(response.statusCode)) wrong.push(`${label} is not a documented status`)
        if (!caller.startsWith('other org') && !caller.startsWith('non')) continue
        // The outsider's own organization stays theirs: they reach it by its slug.
        expect((await t.app.inject({ url: `${V2}/orgs/${otherOrg.slug}`, headers: people.outsider.headers })).statusCode).toBe(200)
      }
    }
    expect(wrong).toEqual([])
  }, 300_000)

  it('refuses a caller without a token on every route', async () => {
    const org = await freshOrg()
    for (const operation of operations) {
      const response = await t.app.inject({ method: operation.method as 'GET', url: operation.url.replace(':org', String(org.id)).replace(':user_id', '1').replace(':invitation_id', '1') })
      expect(response.statusCode, `${operation.method} ${operation.url}`).toBe(401)
    }
  })
})
