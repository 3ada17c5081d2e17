// Organizations: every one of them, and one with its custom fields, members and pending invitations. A
// superuser acts as an owner on every organization, so the console reads them through the
// organization's own routes, and deletes one through /api/v2/admin/orgs.
import { useState } from 'preact/hooks'

import type { Org } from '../api.js'
import { call, client } from '../api.js'
import { Confirmed, formatTime, Loading, Notice, pageOf, Pager, TableFrame, useLoad } from '../components.js'
import type { FieldValues } from '../custom-fields.js'
import { CustomFields, CustomFieldsEditor } from '../custom-fields.js'
import type { Route } from '../router.js'
import { href, navigate } from '../router.js'

const PAGE_SIZE = 20

export function Orgs({ route, id }: { route: Route; id: number | undefined }) {
  return id === undefined ? <OrgList route={route} /> : <OrgPage key={id} id={id} />
}

function OrgList({ route }: { route: Route }) {
  const page = pageOf(route.query)
  const loaded = useLoad(() => call(() => client.GET('/api/v2/admin/orgs', { params: { query: { page, limit: PAGE_SIZE } } })), `${page}`)
  return (
    <>
      <h1>Organizations</h1>
      <Loading loaded={loaded}>
        {(found) => (
          <>
            <TableFrame label="Organizations">
              <thead>
                <tr>
                  <th scope="col">ID</th>
                  <th scope="col">Name</th>
                  <th scope="col">Slug</th>
                  <th scope="col">Second factor required</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {found.data.map((org) => (
                  <tr key={org.id}>
                    <td>{org.id}</td>
                    <td>
                      <a href={href(`/orgs/${org.id}`)}>{org.name}</a>
                    </td>
                    <td>
                      <code>{org.slug}</code>
                    </td>
                    <td>{org.require_mfa ? 'Yes' : 'No'}</td>
                    <td>{formatTime(org.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </TableFrame>
            {found.data.length === 0 && <p class="muted">No organization yet.</p>}
            <Pager page={page} pageSize={PAGE_SIZE} total={found.total_count} to={(next) => href('/orgs', { page: next })} />
          </>
        )}
      </Loading>
    </>
  )
}

function Members({ org }: { org: Org }) {
  const loaded = useLoad(() => call(() => client.GET('/api/v2/orgs/{org}/members', { params: { path: { org: String(org.id) }, query: { limit: 100 } } })), `members-${org.id}`)
  return (
    <Loading loaded={loaded}>
      {(members) => (
        <TableFrame label="Members">
          <thead>
            <tr>
              <th scope="col">User</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
            </tr>
          </thead>
          <tbody>
            {members.data.map((member) => (
              <tr key={member.user_id}>
                <td>
                  <a href={href(`/users/${member.user_id}`)}>{member.username}</a>
                </td>
                <td>{member.email ?? '—'}</td>
                <td>{member.role}</td>
                <td>{formatTime(member.joined_at)}</td>
              </tr>
            ))}
          </tbody>
        </TableFrame>
      )}
    </Loading>
  )
}

function Invitations({ org }: { org: Org }) {
  const loaded = useLoad(() => call(() => client.GET('/api/v2/orgs/{org}/invitations', { params: { path: { org: String(org.id) }, query: { limit: 100 } } })), `invitations-${org.id}`)
  return (
    <Loading loaded={loaded}>
      {(invitations) =>
        invitations.data.length === 0 ? (
          <p class="muted">No pending invitation.</p>
        ) : (
          <TableFrame label="Pending invitations">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Sent</th>
                <th scope="col">Expires</th>
              </tr>
            </thead>
            <tbody>
              {invitations.data.map((invitation) => (
                <tr key={invitation.id}>
                  <td>{invitation.email}</td>
                  <td>{invitation.role}</td>
                  <td>{formatTime(invitation.created_at)}</td>
                  <td>{formatTime(invitation.expires_at)}</td>
                </tr>
              ))}
            </tbody>
          </TableFrame>
        )
      }
    </Loading>
  )
}

function OrgPage({ id }: { id: number }) {
  const [version, setVersion] = useState(0)
  const [notice, setNotice] = useState<string>()
  const loaded = useLoad(() => call(() => client.GET('/api/v2/admin/orgs/{org_id}', { params: { path: { org_id: id } } })), `org-${id}-${version}`)
  return (
    <Loading loaded={loaded}>
      {(org) => (
        <>
          <p>
            <a href={href('/orgs')}>← Organizations</a>
          </p>
          <h1>{org.name}</h1>
          <Notice text={notice} />
          <dl class="details">
            <div>
              <dt>Slug</dt>
              <dd>
                <code>{org.slug}</code>
              </dd>
            </div>
            <div>
              <dt>Second factor required</dt>
              <dd>{org.require_mfa ? 'Yes' : 'No'}</dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>{formatTime(org.created_at)}</dd>
            </div>
          </dl>
          <section>
            <h2>Custom fields</h2>
            <CustomFields fields={org.fields as FieldValues} />
            <CustomFieldsEditor
              key={JSON.stringify(org.fields)}
              id="org-fields"
              fields={org.fields as FieldValues}
              // A superuser acts as an owner: the organization's own edit. The console's types know no declared field, hence the cast.
              save={(fields) => call(() => client.PATCH('/api/v2/orgs/{org}', { params: { path: { org: String(org.id) } }, body: { fields } as never }))}
              onSaved={() => {
                setNotice('Custom fields saved')
                setVersion(version + 1)
              }}
            />
          </section>
          <section>
            <h2>Members</h2>
            <Members org={org} />
          </section>
          <section>
            <h2>Pending invitations</h2>
            <Invitations org={org} />
          </section>
          <section>
            <h2>Actions</h2>
            <Confirmed
              label="Delete organization"
              question={`Delete ${org.name} with its memberships and invitations? Its members stay users.`}
              phrase={org.slug}
              run={() => call(() => client.DELETE('/api/v2/admin/orgs/{org_id}', { params: { path: { org_id: org.id } } }))}
              onDone={() => navigate('/orgs')}
            />
          </section>
        </>
      )}
    </Loading>
  )
}

/** A user's memberships, on their page. */
export function UserOrgs({ userId }: { userId: number }) {
  const loaded = useLoad(() => call(() => client.GET('/api/v2/admin/users/{user_id}/orgs', { params: { path: { user_id: userId }, query: { limit: 100 } } })), `orgs-of-${userId}`)
  return (
    <Loading loaded={loaded}>
      {(orgs) =>
        orgs.data.length === 0 ? (
          <p class="muted">Not a member of any organization.</p>
        ) : (
          <ul>
            {orgs.data.map((org) => (
              <li key={org.id}>
                <a href={href(`/orgs/${org.id}`)}>{org.name}</a> ({org.role})
              </li>
            ))}
          </ul>
        )
      }
    </Loading>
  )
}
