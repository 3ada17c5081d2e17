// Every user, soft-deleted ones too: search (name, username, or a whole email address), state,
// an indexed sort order, and pages. The filters live in the URL, so a view can be shared.
import { useState } from 'preact/hooks'

import { call, client } from '../api.js'
import { Loading, pageOf, Pager, TableFrame, useLoad } from '../components.js'
import type { Route } from '../router.js'
import { href, navigate } from '../router.js'

const PAGE_SIZE = 20
const STATUSES = [
  ['live', 'Live'],
  ['deleted', 'Soft-deleted'],
  ['all', 'All'],
] as const
const SORTS = [
  ['id', 'Oldest first'],
  ['-id', 'Newest first'],
  ['username', 'Username A–Z'],
  ['-username', 'Username Z–A'],
  ['email', 'Email A–Z'],
  ['-email', 'Email Z–A'],
] as const

type Status = (typeof STATUSES)[number][0]
type Sort = (typeof SORTS)[number][0]

const oneOf = <T extends string>(value: string | null, options: readonly (readonly [T, string])[], fallback: T): T =>
  options.some(([option]) => option === value) ? (value as T) : fallback

export function Users({ route }: { route: Route }) {
  const search = route.query.get('search') ?? ''
  const status = oneOf<Status>(route.query.get('status'), STATUSES, 'live')
  const sort = oneOf<Sort>(route.query.get('sort'), SORTS, 'id')
  const page = pageOf(route.query)
  const [text, setText] = useState(search)
  const loaded = useLoad(
    () => call(() => client.GET('/api/v2/admin/users', { params: { query: { search: search || undefined, status, sort, page, limit: PAGE_SIZE } } })),
    `${search}|${status}|${sort}|${page}`,
  )
  const view = (changes: Record<string, string | number | undefined>) => ({ search, status, sort, page: 1, ...changes })

  return (
    <>
      <h1>Users</h1>
      <form
        class="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault()
          navigate('/users', view({ search: text.trim() }))
        }}
      >
        <div>
          <label for="user-search">Search users</label>
          <input id="user-search" type="search" maxLength={254} placeholder="Name, username or email" value={text} onInput={(event) => setText(event.currentTarget.value)} />
        </div>
        <div>
          <label for="user-status">State</label>
          <select id="user-status" value={status} onChange={(event) => navigate('/users', view({ status: event.currentTarget.value }))}>
            {STATUSES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="user-sort">Sort</label>
          <select id="user-sort" value={sort} onChange={(event) => navigate('/users', view({ sort: event.currentTarget.value }))}>
            {SORTS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" class="primary">
          Search
        </button>
      </form>
      <Loading loaded={loaded}>
        {(found) => (
          <>
            <TableFrame label="Users">
              <thead>
                <tr>
                  <th scope="col">ID</th>
                  <th scope="col">Username</th>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Tier</th>
                  <th scope="col">Verified</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {found.data.map((user) => (
                  <tr key={user.id}>
                    <td>{user.id}</td>
                    <td>
                      <a href={href(`/users/${user.id}`)}>{user.username}</a>
                    </td>
                    <td>{user.name}</td>
                    <td>{user.email}</td>
                    <td>{user.subscription_tier ?? '—'}</td>
                    <td>{user.is_verified ? 'Yes' : 'No'}</td>
                    <td>{user.is_deleted ? <span class="badge deleted">Deleted</span> : user.is_superuser ? <span class="badge">Superuser</span> : 'Live'}</td>
                  </tr>
                ))}
              </tbody>
            </TableFrame>
            {found.data.length === 0 && <p class="muted">No user matches.</p>}
            <Pager page={page} pageSize={PAGE_SIZE} total={found.total_count} to={(next) => href('/users', view({ page: next }))} />
          </>
        )}
      </Loading>
    </>
  )
}
