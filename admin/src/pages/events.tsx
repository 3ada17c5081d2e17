// The security event log, newest first, filtered by user and type.
import { useState } from 'preact/hooks'

import type { SecurityEvent } from '../api.js'
import { call, client } from '../api.js'
import { EventName, formatTime, Loading, pageOf, Pager, TableFrame, useLoad } from '../components.js'
import type { Route } from '../router.js'
import { href, navigate } from '../router.js'

const PAGE_SIZE = 25
// Every type the API documents (listed in this order): a type added to the API and not here fails the typecheck.
const LISTED: Record<SecurityEvent['type'], true> = {
  user_signed_up: true,
  login_succeeded: true,
  login_failed: true,
  logout: true,
  refresh_token_reused: true,
  password_changed: true,
  password_reset_requested: true,
  email_login_requested: true,
  identity_linked: true,
  identity_unlinked: true,
  password_reset: true,
  email_changed: true,
  email_change_undone: true,
  email_verified: true,
  session_revoked: true,
  mfa_enabled: true,
  mfa_disabled: true,
  mfa_verified: true,
  mfa_failed: true,
  recovery_codes_regenerated: true,
  recovery_code_used: true,
  mfa_reset_by_admin: true,
  passkey_added: true,
  passkey_removed: true,
  passkey_counter_refused: true,
  user_deleted_permanently: true,
  reauthenticated: true,
  reauthentication_failed: true,
  ways_in_ended: true,
  webhook_created: true,
  webhook_deleted: true,
  webhook_secret_rotated: true,
  webhook_disabled: true,
  post_read_as_superuser: true,
  post_changed_as_superuser: true,
  posts_listed_as_superuser: true,
  org_created: true,
  org_updated: true,
  member_added: true,
  member_role_changed: true,
  member_removed: true,
  member_left: true,
  invitation_sent: true,
  invitation_accepted: true,
  invitation_declined: true,
  invitation_revoked: true,
  captcha_failed: true,
  password_breached_refused: true,
  email_domain_blocked: true,
  breached_password_check_failed: true,
  user_banned: true,
  user_unbanned: true,
  impersonation_started: true,
  impersonation_ended: true,
  account_deletion_requested: true,
  account_deletion_cancelled: true,
  data_export_requested: true,
  data_export_downloaded: true,
  new_device_alerted: true,
  new_device_reported: true,
  comment_hidden: true,
  comment_unhidden: true,
  comment_removed: true,
  report_resolved: true,
}
const TYPES = Object.keys(LISTED) as SecurityEvent['type'][]

export function Events({ route }: { route: Route }) {
  const user = route.query.get('user_id') ?? ''
  const userId = /^\d+$/.test(user) ? Number(user) : undefined
  const typeParameter = route.query.get('type')
  const type = TYPES.find((known) => known === typeParameter)
  const page = pageOf(route.query)
  const [fields, setFields] = useState({ user, type: type ?? '' })
  const loaded = useLoad(
    () => call(() => client.GET('/api/v2/security-events', { params: { query: { user_id: userId, type, page, limit: PAGE_SIZE } } })),
    `${userId}|${type}|${page}`,
  )
  return (
    <>
      <h1>Security events</h1>
      <form
        class="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault()
          navigate('/events', { user_id: fields.user.trim(), type: fields.type })
        }}
      >
        <div>
          <label for="event-user">User ID</label>
          <input id="event-user" inputMode="numeric" pattern="[0-9]*" value={fields.user} onInput={(event) => setFields({ ...fields, user: event.currentTarget.value })} />
        </div>
        <div>
          <label for="event-type">Type</label>
          <select id="event-type" value={fields.type} onChange={(event) => setFields({ ...fields, type: event.currentTarget.value })}>
            <option value="">Every type</option>
            {TYPES.map((option) => (
              <option key={option} value={option}>
                {option.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" class="primary">
          Filter
        </button>
      </form>
      <Loading loaded={loaded}>
        {(events) => (
          <>
            <TableFrame label="Security events">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Event</th>
                  <th scope="col">User</th>
                  <th scope="col">Address</th>
                  <th scope="col">Browser or client</th>
                </tr>
              </thead>
              <tbody>
                {events.data.map((event) => (
                  <tr key={event.id}>
                    <td>{formatTime(event.created_at)}</td>
                    <td>
                      <EventName event={event} />
                    </td>
                    <td>{event.user_id === null ? '—' : <a href={href(`/users/${event.user_id}`)}>User {event.user_id}</a>}</td>
                    <td>{event.ip ?? '—'}</td>
                    <td class="wrap">{event.user_agent ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </TableFrame>
            {events.data.length === 0 && <p class="muted">No event matches.</p>}
            <Pager page={page} pageSize={PAGE_SIZE} total={events.total_count} to={(next) => href('/events', { user_id: userId, type, page: next })} />
          </>
        )}
      </Loading>
    </>
  )
}
