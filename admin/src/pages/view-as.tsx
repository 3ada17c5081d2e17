// "View as": the user's own view of their account through a support impersonation (the banner
// above says so): their profile, posts and files as they see them, read with the impersonation's
// token. Starting one takes a reason, a mode and how long; the console's session must be fresh.
import { useState } from 'preact/hooks'

import { callOnce } from '../api.js'
import { ActionForm, formatTime, Loading, TableFrame, useLoad } from '../components.js'
import { endViewAs, startViewAs, useViewAs, viewAsClient } from '../impersonation.js'
import { href, navigate } from '../router.js'

/** The banner every view shows while an impersonation is held: whose account, how, until when, and a way out. */
export function ViewAsBanner() {
  const held = useViewAs()
  if (!held) return null
  return (
    <div class="impersonation-banner" role="status" data-testid="impersonation-banner">
      <strong>Viewing as {held.user.username}</strong> — {held.mode === 'read_only' ? 'read-only' : 'full access'}, until {formatTime(held.expiresAt)}. Every request is
      recorded and shown to the user.{' '}
      <a href={href('/view-as')}>Open their view</a>{' '}
      <button type="button" onClick={() => endViewAs().then(() => navigate(`/users/${held.user.id}`))}>
        End
      </button>
    </div>
  )
}

/** On a user's page: start viewing their account as them. */
export function ViewAsForm({ userId }: { userId: number }) {
  const [reason, setReason] = useState('')
  const [mode, setMode] = useState<'read_only' | 'full'>('read_only')
  const [minutes, setMinutes] = useState('15')
  return (
    <ActionForm label="View as this user" disabled={reason.trim() === ''} run={() => startViewAs(userId, { reason, mode, minutes: Number(minutes) })} onDone={() => navigate('/view-as')}>
      <div class="grid-fields">
        <p>
          <label for="view-as-reason">Reason (shown to the user)</label>
          <input id="view-as-reason" value={reason} maxLength={500} onInput={(event) => setReason(event.currentTarget.value)} />
        </p>
        <p>
          <label for="view-as-mode">Mode</label>
          <select id="view-as-mode" value={mode} onChange={(event) => setMode(event.currentTarget.value as 'read_only' | 'full')}>
            <option value="read_only">Read-only</option>
            <option value="full">Full (never their password, email, factors or sessions)</option>
          </select>
        </p>
        <p>
          <label for="view-as-minutes">Minutes (at most 60)</label>
          <input id="view-as-minutes" type="number" min={1} max={60} value={minutes} onInput={(event) => setMinutes(event.currentTarget.value)} />
        </p>
      </div>
    </ActionForm>
  )
}

function TheirView({ userId }: { userId: number }) {
  const loaded = useLoad(
    () =>
      Promise.all([
        callOnce(() => viewAsClient.GET('/api/v2/users/me')),
        callOnce(() => viewAsClient.GET('/api/v2/users/me/posts', { params: { query: { limit: 20 } } })),
      ]),
    `view-as-${userId}`,
  )
  return (
    <Loading loaded={loaded}>
      {([profile, posts]) => (
        <>
          <h2>Profile</h2>
          <dl class="details" data-testid="view-as-profile">
            <div>
              <dt>Name</dt>
              <dd>{profile.name}</dd>
            </div>
            <div>
              <dt>Username</dt>
              <dd>{profile.username}</dd>
            </div>
            <div>
              <dt>Email</dt>
              <dd>{profile.email ?? '—'}</dd>
            </div>
          </dl>
          <h2>Their posts</h2>
          {posts.data.length === 0 ? (
            <p class="muted">No posts.</p>
          ) : (
            <TableFrame label="Their posts">
              <thead>
                <tr>
                  <th scope="col">Title</th>
                  <th scope="col">Visibility</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {posts.data.map((post) => (
                  <tr key={post.id}>
                    <td>{post.title}</td>
                    <td>{post.visibility}</td>
                    <td>{post.status}</td>
                    <td>{formatTime(post.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </TableFrame>
          )}
        </>
      )}
    </Loading>
  )
}

export function ViewAs() {
  const held = useViewAs()
  if (!held) {
    return (
      <>
        <h1>View as</h1>
        <p>
          No impersonation is running. Start one from a user's page. <a href={href('/users')}>Users</a>
        </p>
      </>
    )
  }
  return (
    <>
      <h1>{held.user.username}'s view</h1>
      <p class="muted">What {held.user.name} sees of their account. You are acting as them: {held.mode === 'read_only' ? 'nothing can be changed' : 'their ways in cannot be changed'}.</p>
      <TheirView userId={held.user.id} />
    </>
  )
}
