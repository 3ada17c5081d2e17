// Reports: the open queue (or what was dismissed or acted on), oldest first, each resolved with
// one of the actions the API takes: dismiss, hide, remove, ban (docs/api.md "Reports").
import { useState } from 'preact/hooks'

import { call, client } from '../api.js'
import { Confirmed, formatTime, Loading, Notice, pageOf, Pager, TableFrame, useLoad } from '../components.js'
import type { Route } from '../router.js'
import { href } from '../router.js'

const PAGE_SIZE = 20
const STATUSES = ['open', 'dismissed', 'actioned'] as const
type Status = (typeof STATUSES)[number]
type Action = 'dismiss' | 'hide' | 'remove' | 'ban'

const ACTIONS: Record<'post' | 'comment' | 'user', Action[]> = { post: ['dismiss', 'hide', 'remove', 'ban'], comment: ['dismiss', 'hide', 'remove', 'ban'], user: ['dismiss', 'ban'] }
const QUESTIONS: Record<Action, string> = {
  dismiss: 'Dismiss this report? What was reported stays; every reporter is told.',
  hide: 'Hide what was reported (a comment hidden, a post deleted)? Every reporter is told.',
  remove: 'Remove what was reported for good? This cannot be undone.',
  ban: 'Ban its author for good? They are signed out everywhere.',
}

function targetLink(target: string, id: number, postId: number | undefined) {
  if (target === 'user') return <a href={href(`/users/${id}`)}>User {id}</a>
  if (target === 'post') return <a href={href(`/posts/${id}`)}>Post {id}</a>
  return postId === undefined ? <>Comment {id}</> : <a href={href(`/posts/${postId}`)}>Comment {id}</a>
}

export function Reports({ route }: { route: Route }) {
  const status: Status = STATUSES.find((known) => known === route.query.get('status')) ?? 'open'
  const page = pageOf(route.query)
  const [done, setDone] = useState<string>()
  const [version, setVersion] = useState(0)
  const loaded = useLoad(() => call(() => client.GET('/api/v2/admin/reports', { params: { query: { status, page, limit: PAGE_SIZE } } })), `${status}|${page}|${version}`)
  return (
    <>
      <h1>Reports</h1>
      <nav class="actions" aria-label="Report status">
        {STATUSES.map((known) => (
          <a key={known} href={href('/reports', { status: known })} aria-current={known === status ? 'page' : undefined}>
            {known}
          </a>
        ))}
      </nav>
      {done && <Notice text={done} />}
      <Loading loaded={loaded}>
        {(found) => (
          <>
            <TableFrame label="Reports">
              <thead>
                <tr>
                  <th scope="col">ID</th>
                  <th scope="col">What</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Reported by</th>
                  <th scope="col">Owner</th>
                  <th scope="col">Filed</th>
                  <th scope="col">{status === 'open' ? 'Resolve' : 'Resolution'}</th>
                </tr>
              </thead>
              <tbody>
                {found.data.map((report) => (
                  <tr key={report.id}>
                    <td>{report.id}</td>
                    <td>{targetLink(report.target, report.target_id, undefined)}</td>
                    <td class="wrap">
                      {report.reason}
                      {report.note && <div class="muted">{report.note}</div>}
                    </td>
                    <td>
                      <a href={href(`/users/${report.reporter_id}`)}>User {report.reporter_id}</a>
                    </td>
                    <td>
                      <a href={href(`/users/${report.target_owner_id}`)}>User {report.target_owner_id}</a>
                    </td>
                    <td>{formatTime(report.created_at)}</td>
                    <td>
                      {report.status === 'open' ? (
                        <div class="actions">
                          {ACTIONS[report.target].map((action) => (
                            <Confirmed
                              key={action}
                              label={action[0]!.toUpperCase() + action.slice(1)}
                              question={QUESTIONS[action]}
                              run={() => call(() => client.POST('/api/v2/admin/reports/{report_id}/resolve', { params: { path: { report_id: report.id } }, body: { action } }))}
                              onDone={() => {
                                setDone(`Report ${report.id}: ${action}`)
                                setVersion(version + 1)
                              }}
                            />
                          ))}
                        </div>
                      ) : (
                        <>
                          {report.action} {report.resolved_at && <span class="muted">{formatTime(report.resolved_at)}</span>}
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </TableFrame>
            {found.data.length === 0 && <p class="muted">No {status} report.</p>}
            <Pager page={page} pageSize={PAGE_SIZE} total={found.total_count} to={(next) => href('/reports', { status, page: next })} />
          </>
        )}
      </Loading>
    </>
  )
}
