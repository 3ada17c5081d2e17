// The data of the post-list benchmark (`--only visibility`, bench/lib/lists.ts): posts of mixed
// visibility over 50 organizations, and readers who belong to none, one, ten or fifty of them.
// Every post follows one pattern of ten by its id: six public and published (ids ending in 0 to
// 5: a get of a random id ending in 0 reads a public post at any size), one unlisted, one
// private, one an organization's (members only) and one a draft of an organization's. The posts
// bench/lib/seed.ts wrote (all public) are given the pattern first.
import type { SeedTarget } from './seed.js'
import { indexSeededPosts, onTarget, SEARCH_WORDS_SQL as WORDS } from './seed.js'

export const ORGS = 50

/** The readers, by username (seeded users u1..u10000): how many organizations each belongs to. */
export const LIST_READERS = [
  { name: 'signed in, no organization', username: 'u6', orgs: 0 },
  { name: 'member of 1 organization', username: 'u3', orgs: 1 },
  { name: 'member of 10 organizations', username: 'u4', orgs: 10 },
  { name: 'member of 50 organizations', username: 'u5', orgs: 50 },
] as const

/** The pattern's columns, of the number `n` (the post's id to be). */
const KIND = (n: string) => `case ${n} % 10 when 6 then 'unlisted' when 7 then 'private' when 8 then 'org' else 'public' end`
const STATUS = (n: string) => `case ${n} % 10 when 9 then 'draft' else 'published' end`
const ORG = (n: string) => `case when ${n} % 10 in (8, 9) then 1 + (${n} / 10) % ${ORGS} end`
const TEXT = 'A post of mixed visibility, seeded for the list benchmark. '

const NOW = { sqlite: `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`, postgres: 'now()' }

/** The organizations and their members: u3 in the first, u4 in ten (owner of the first), u5 in all fifty (admin of the first). */
export async function seedOrganizations(target: SeedTarget): Promise<void> {
  const memberships: [number, number, string][] = []
  for (let org = 1; org <= ORGS; org++) {
    if (org === 1) memberships.push([org, 3, 'member'])
    if (org <= 10) memberships.push([org, 4, org === 1 ? 'owner' : 'member'])
    memberships.push([org, 5, org === 1 ? 'admin' : 'member'])
  }
  const organizations = (now: string) =>
    `insert into organizations (id, name, slug, require_mfa, created_at, updated_at) values ${Array.from({ length: ORGS }, (_, index) => `(${index + 1}, 'Bench org ${index + 1}', 'bench-org-${index + 1}', 0, ${now}, ${now})`).join(', ')}`
  const members = (now: string) => `insert into org_memberships (org_id, user_id, role, created_at) values ${memberships.map(([org, user, role]) => `(${org}, ${user}, '${role}', ${now})`).join(', ')}`
  await onTarget(
    target,
    (db) => {
      db.exec(organizations(NOW.sqlite))
      db.exec(members(NOW.sqlite))
    },
    async (client) => {
      await client.query(organizations(NOW.postgres))
      await client.query(`select setval(pg_get_serial_sequence('organizations', 'id'), ${ORGS})`)
      await client.query(members(NOW.postgres))
    },
  )
}

/** The seeded posts (ids 1..`count`, all public) given the pattern. */
export async function patternSeededPosts(target: SeedTarget, count: number): Promise<void> {
  const pattern = (now: string) =>
    `update posts set visibility = ${KIND('id')}, status = ${STATUS('id')}, org_id = ${ORG('id')}, published_at = case id % 10 when 9 then null else ${now} end where id <= ${count}`
  await onTarget(
    target,
    (db) => {
      db.exec(pattern(NOW.sqlite))
      db.exec('analyze')
    },
    async (client) => {
      await client.query(pattern(NOW.postgres))
      await client.query('vacuum analyze')
    },
  )
  await indexSeededPosts(target)
}

/** Posts past `from` (ids above it) up to `total`, in the pattern, written by users 1..`authors`. */
export async function seedMixedPostsUpTo(target: SeedTarget, from: number, total: number, authors: number): Promise<void> {
  if (total <= from) return
  const columns = (now: string) => `${KIND('g')}, ${STATUS('g')}, ${ORG('g')}, case g % 10 when 9 then null else ${now} end, ${now}, ${now}`
  await onTarget(
    target,
    (db) => {
      db.pragma('synchronous = OFF')
      db.prepare(
        `with recursive series(g) as (select ? union all select g + 1 from series where g < ?)
         insert into posts (author_id, title, text, slug, slug_scope, visibility, status, org_id, published_at, created_at, updated_at)
         select 1 + (g % ?), 'Mixed ' || g, ? || g || ${WORDS('g')}, 'mixed-' || g, 'bench', ${columns(NOW.sqlite)} from series`,
      ).run(from + 1, total, authors, TEXT)
      db.exec('analyze')
    },
    async (client) => {
      await client.query(
        `insert into posts (author_id, title, text, slug, slug_scope, visibility, status, org_id, published_at, created_at, updated_at)
         select 1 + (g % $3::int), 'Mixed ' || g, $4 || g || ${WORDS('g')}, 'mixed-' || g, 'bench', ${columns(NOW.postgres)} from generate_series($1::int, $2::int) as g`,
        [from + 1, total, authors, TEXT],
      )
      await client.query('vacuum analyze')
    },
  )
  await indexSeededPosts(target)
}
