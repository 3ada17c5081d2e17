// One user: every field and custom field, tier, verification, sessions, files and storage, API keys, second factors, identities and
// recent security events, and
// what a superuser does to an account (edit, tier, resend verification, end sessions, ban and
// lift, view as them, soft delete, restore, permanent delete).
import { useState } from 'preact/hooks'

import type { ManagedUser } from '../api.js'
import { call, client } from '../api.js'
import { ActionButton, ActionForm, Confirmed, EventName, formatTime, Loading, Notice, TableFrame, useLoad } from '../components.js'
import type { FieldValues } from '../custom-fields.js'
import { CustomFields, CustomFieldsEditor } from '../custom-fields.js'
import { href, navigate } from '../router.js'
import { UserOrgs } from './orgs.js'
import { SecondFactors } from './user-factors.js'
import { UserFiles } from './user-files.js'
import { ViewAsForm } from './view-as.js'

const userPath = (id: number) => ({ params: { path: { user_id: id } } })

function Details({ user }: { user: ManagedUser }) {
  const rows: [string, string][] = [
    ['ID', String(user.id)],
    ['Name', user.name],
    ['Username', user.username],
    ['Email', user.email],
    ['Age', user.age === null ? '—' : String(user.age)],
    ['Tier', user.subscription_tier ?? 'No tier'],
    ['Email verified', user.is_verified ? 'Yes' : 'No'],
    ['Active', user.is_active ? 'Yes' : 'No'],
    ['Superuser', user.is_superuser ? 'Yes' : 'No'],
    ['Created', formatTime(user.created_at)],
    ['Updated', formatTime(user.updated_at)],
    ['Deleted', user.is_deleted ? formatTime(user.deleted_at) : 'No'],
    ['Banned', user.banned_until === null ? 'No' : `${user.banned_until === 'forever' ? 'Forever' : `Until ${formatTime(user.banned_until)}`}: ${user.ban_reason ?? ''}`],
  ]
  return (
    <dl class="details">
      {rows.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  )
}

function EditForm({ user, onSaved }: { user: ManagedUser; onSaved: (message: string) => void }) {
  const [fields, setFields] = useState({ name: user.name, username: user.username, email: user.email, age: user.age === null ? '' : String(user.age) })
  const changes = () => {
    const body: { name?: string; username?: string; email?: string; age?: number } = {}
    if (fields.name !== user.name) body.name = fields.name
    if (fields.username !== user.username) body.username = fields.username
    if (fields.email !== user.email) body.email = fields.email
    if (fields.age !== '' && Number(fields.age) !== user.age) body.age = Number(fields.age)
    return body
  }
  const set = (key: keyof typeof fields) => (event: { currentTarget: HTMLInputElement }) => setFields({ ...fields, [key]: event.currentTarget.value })
  return (
    <ActionForm
      label="Save changes"
      disabled={Object.keys(changes()).length === 0}
      run={() => call(() => client.PATCH('/api/v2/users/{user_id}', { ...userPath(user.id), body: changes() }))}
      onDone={() => onSaved('Changes saved')}
    >
      <div class="grid-fields">
        <p>
          <label for="edit-name">Name</label>
          <input id="edit-name" value={fields.name} onInput={set('name')} />
        </p>
        <p>
          <label for="edit-username">Username</label>
          <input id="edit-username" value={fields.username} onInput={set('username')} />
        </p>
        <p>
          <label for="edit-email">Email</label>
          <input id="edit-email" type="email" value={fields.email} onInput={set('email')} />
        </p>
        <p>
          <label for="edit-age">Age</label>
          <input id="edit-age" type="number" min={0} max={150} value={fields.age} onInput={set('age')} />
        </p>
      </div>
    </ActionForm>
  )
}

/** Ban with a reason (for superusers), a message (for the user) and an optional end; or lift a ban in force. */
function BanForm({ user, onDone }: { user: ManagedUser; onDone: (message: string) => void }) {
  const [fields, setFields] = useState({ reason: '', message: '', until: '' })
  const set = (key: keyof typeof fields) => (event: { currentTarget: HTMLInputElement }) => setFields({ ...fields, [key]: event.currentTarget.value })
  if (user.banned_until !== null) {
    return <ActionButton label="Lift ban" kind="primary" run={() => call(() => client.DELETE('/api/v2/admin/users/{user_id}/ban', userPath(user.id)))} onDone={() => onDone('Ban lifted')} />
  }
  const body = () => ({
    reason: fields.reason,
    ...(fields.message.trim() === '' ? {} : { public_message: fields.message }),
    ...(fields.until === '' ? {} : { expires_at: new Date(fields.until).toISOString() }),
  })
  return (
    <ActionForm label="Ban user" kind="plain" disabled={fields.reason.trim() === ''} run={() => call(() => client.POST('/api/v2/admin/users/{user_id}/ban', { ...userPath(user.id), body: body() }))} onDone={() => onDone('User banned: every way in is refused and their sessions ended')}>
      <div class="grid-fields">
        <p>
          <label for="ban-reason">Reason (for superusers)</label>
          <input id="ban-reason" value={fields.reason} maxLength={500} onInput={set('reason')} />
        </p>
        <p>
          <label for="ban-message">Message to the user (optional)</label>
          <input id="ban-message" value={fields.message} maxLength={500} onInput={set('message')} />
        </p>
        <p>
          <label for="ban-until">Until (empty: forever)</label>
          <input id="ban-until" type="datetime-local" value={fields.until} onInput={set('until')} />
        </p>
      </div>
    </ActionForm>
  )
}

function TierForm({ user, onSaved }: { user: ManagedUser; onSaved: (message: string) => void }) {
  const tiers = useLoad(() => call(() => client.GET('/api/v2/tiers')), 'tiers')
  const [tier, setTier] = useState(user.subscription_tier ?? '')
  return (
    <ActionForm
      label="Change tier"
      disabled={tier === (user.subscription_tier ?? '')}
      run={() => call(() => client.PATCH('/api/v2/users/{user_id}/tier', { ...userPath(user.id), body: { subscription_tier: tier === '' ? null : tier } }))}
      onDone={() => onSaved(`Tier set to ${tier === '' ? 'no tier' : tier}`)}
    >
      <p>
        <label for="user-tier">Tier</label>
        <select id="user-tier" value={tier} onChange={(event) => setTier(event.currentTarget.value)}>
          <option value="">No tier</option>
          {(tiers.data ?? []).map((option) => (
            <option key={option.id} value={option.name}>
              {option.name}
            </option>
          ))}
        </select>
      </p>
    </ActionForm>
  )
}

function Sessions({ userId, round }: { userId: number; round: number }) {
  const loaded = useLoad(() => call(() => client.GET('/api/v2/admin/users/{user_id}/sessions', userPath(userId))), `sessions-${userId}-${round}`)
  return (
    <Loading loaded={loaded}>
      {(sessions) =>
        sessions.length === 0 ? (
          <p class="muted">No live sessions.</p>
        ) : (
          <TableFrame label="Live sessions">
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Last used</th>
                <th scope="col">Address</th>
                <th scope="col">Browser or client</th>
              </tr>
            </thead>
            <tbody>
              {sessions.map((session) => (
                <tr key={session.id}>
                  <td>{formatTime(session.created_at)}</td>
                  <td>{formatTime(session.last_used_at)}</td>
                  <td>{session.ip ?? '—'}</td>
                  <td class="wrap">{session.user_agent ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </TableFrame>
        )
      }
    </Loading>
  )
}

function ApiKeys({ userId }: { userId: number }) {
  const loaded = useLoad(() => call(() => client.GET('/api/v2/admin/users/{user_id}/api-keys', userPath(userId))), `keys-${userId}`)
  return (
    <Loading loaded={loaded}>
      {(keys) =>
        keys.length === 0 ? (
          <p class="muted">No API keys.</p>
        ) : (
          <TableFrame label="API keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Scopes</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id}>
                  <td>{key.name}</td>
                  <td>
                    <code>{key.prefix}</code>
                  </td>
                  <td>{key.scopes.join(', ')}</td>
                  <td>{formatTime(key.last_used_at)}</td>
                  <td>{key.expires_at ? formatTime(key.expires_at) : 'Never'}</td>
                  <td>
                    <ActionButton
                      label={`Revoke ${key.name}`}
                      kind="danger"
                      run={() => call(() => client.DELETE('/api/v2/admin/users/{user_id}/api-keys/{api_key_id}', { params: { path: { user_id: userId, api_key_id: key.id } } }))}
                      onDone={loaded.reload}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </TableFrame>
        )
      }
    </Loading>
  )
}

function Identities({ userId }: { userId: number }) {
  const loaded = useLoad(() => call(() => client.GET('/api/v2/admin/users/{user_id}/identities', userPath(userId))), `identities-${userId}`)
  return (
    <Loading loaded={loaded}>
      {(identities) =>
        identities.length === 0 ? (
          <p class="muted">No identity provider linked.</p>
        ) : (
          <TableFrame label="Linked identities">
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Email there</th>
                <th scope="col">Linked</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {identities.map((identity) => (
                <tr key={identity.id}>
                  <td>{identity.provider}</td>
                  <td>{identity.email ?? '—'}</td>
                  <td>{formatTime(identity.created_at)}</td>
                  <td>
                    <ActionButton
                      label={`Unlink ${identity.provider}`}
                      kind="danger"
                      run={() => call(() => client.DELETE('/api/v2/admin/users/{user_id}/identities/{identity_id}', { params: { path: { user_id: userId, identity_id: identity.id } } }))}
                      onDone={loaded.reload}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </TableFrame>
        )
      }
    </Loading>
  )
}

function RecentEvents({ userId, round }: { userId: number; round: number }) {
  const loaded = useLoad(() => call(() => client.GET('/api/v2/security-events', { params: { query: { user_id: userId, limit: 10, page: 1 } } })), `events-${userId}-${round}`)
  return (
    <Loading loaded={loaded}>
      {(events) =>
        events.data.length === 0 ? (
          <p class="muted">No security events.</p>
        ) : (
          <>
            <TableFrame label="Recent security events">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Event</th>
                  <th scope="col">Address</th>
                </tr>
              </thead>
              <tbody>
                {events.data.map((event) => (
                  <tr key={event.id}>
                    <td>{formatTime(event.created_at)}</td>
                    <td>
                      <EventName event={event} />
                    </td>
                    <td>{event.ip ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </TableFrame>
            <p>
              <a href={href('/events', { user_id: userId })}>All {events.total_count} events of this user</a>
            </p>
          </>
        )
      }
    </Loading>
  )
}

export function UserPage({ id }: { id: number }) {
  const loaded = useLoad(() => call(() => client.GET('/api/v2/admin/users/{user_id}', userPath(id))), `user-${id}`)
  const [notice, setNotice] = useState<string>()
  const [round, setRound] = useState(0)
  const done = (message: string) => {
    setNotice(message)
    setRound(round + 1)
    loaded.reload()
  }

  return (
    <Loading loaded={loaded}>
      {(user) => (
        <>
          <p>
            <a href={href('/users')}>← Users</a>
          </p>
          <h1>
            {user.username} {user.is_deleted && <span class="badge deleted">Deleted</span>} {user.banned_until !== null && <span class="badge deleted">Banned</span>} {user.is_superuser && <span class="badge">Superuser</span>}
          </h1>
          <Notice text={notice} />
          <Details user={user} />
          <section>
            <h2>Custom fields</h2>
            <CustomFields fields={user.fields as FieldValues} />
            {!user.is_deleted && (
              <CustomFieldsEditor
                key={user.updated_at}
                id="user-fields"
                fields={user.fields as FieldValues}
                // The console's types know no declared field, hence the cast.
                save={(fields) => call(() => client.PATCH('/api/v2/users/{user_id}', { ...userPath(user.id), body: { fields } as never }))}
                onSaved={() => done('Custom fields saved')}
              />
            )}
          </section>

          <section>
            <h2>Actions</h2>
            <div class="actions">
              {!user.is_deleted && !user.is_verified && (
                <ActionButton
                  label="Resend verification email"
                  busyLabel="Sending…"
                  run={() => call(() => client.POST('/api/v2/admin/users/{user_id}/email-verification', userPath(user.id)))}
                  onDone={() => done(`Verification email sent to ${user.email}`)}
                />
              )}
              <ActionButton
                label="Revoke all sessions"
                run={() => call(() => client.DELETE('/api/v2/admin/users/{user_id}/sessions', userPath(user.id)))}
                onDone={(result) => done((result as { message: string }).message)}
              />
              {user.is_deleted ? (
                <ActionButton
                  label="Restore user"
                  kind="primary"
                  run={() => call(() => client.POST('/api/v2/users/{user_id}/restore', userPath(user.id)))}
                  onDone={() => done('User restored')}
                />
              ) : (
                <Confirmed
                  label="Soft delete"
                  question={`Soft-delete ${user.username}? They disappear from every read and cannot log in; you can restore them later.`}
                  run={() => call(() => client.DELETE('/api/v2/users/{user_id}', userPath(user.id)))}
                  onDone={() => done('User soft-deleted')}
                />
              )}
              <Confirmed
                label="Delete permanently"
                question={`Remove ${user.username} and all their posts from the database? This cannot be undone.`}
                phrase={user.username}
                run={() => call(() => client.DELETE('/api/v2/users/{user_id}/permanent', userPath(user.id)))}
                onDone={() => navigate('/users', { status: 'all' })}
              />
            </div>
          </section>

          {!user.is_deleted && (
            <>
              {!user.is_superuser && (
                <>
                  <section>
                    <h2>Ban</h2>
                    <BanForm key={`${user.id}-${user.banned_until}`} user={user} onDone={done} />
                  </section>
                  {user.banned_until === null && (
                    <section>
                      <h2>View as</h2>
                      <p class="muted">Opens their account as they see it, for support. Needs a sign-in (or a second factor) in the last 10 minutes. They see it in their security log.</p>
                      <ViewAsForm userId={user.id} />
                    </section>
                  )}
                </>
              )}
              <section>
                <h2>Tier</h2>
                <TierForm key={`${user.id}-${user.subscription_tier}`} user={user} onSaved={done} />
              </section>
              <section>
                <h2>Edit</h2>
                <EditForm key={user.updated_at} user={user} onSaved={done} />
              </section>
            </>
          )}

          <section>
            <h2>Sessions</h2>
            <Sessions userId={user.id} round={round} />
          </section>
          <section>
            <h2>Organizations</h2>
            <UserOrgs userId={user.id} />
          </section>
          <section>
            <h2>Files</h2>
            <UserFiles userId={user.id} />
          </section>
          <section>
            <h2>API keys</h2>
            <ApiKeys userId={user.id} />
          </section>
          <section>
            <h2>Second factors</h2>
            <SecondFactors userId={user.id} round={round} onRemoved={done} />
          </section>
          <section>
            <h2>Identity providers</h2>
            <Identities userId={user.id} />
          </section>
          <section>
            <h2>Recent security events</h2>
            <RecentEvents userId={user.id} round={round} />
          </section>
          <p>
            <a href={href('/posts', { author_id: user.id })}>Posts by {user.username}</a>
          </p>
        </>
      )}
    </Loading>
  )
}
