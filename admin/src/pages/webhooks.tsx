// Webhook endpoints: register one (its secret is shown once), send a ping, turn it off and on,
// rotate its secret, remove it; and each endpoint's deliveries, with a redelivery button.
import { useState } from 'preact/hooks'

import type { Webhook, WebhookDelivery } from '../api.js'
import { call, client } from '../api.js'
import { ActionButton, ActionForm, Confirmed, formatTime, Loading, pageOf, Pager, TableFrame, useLoad } from '../components.js'
import type { Route } from '../router.js'
import { href } from '../router.js'

const EVENT_TYPES = ['user.created', 'user.updated', 'user.email_verified', 'user.deleted', 'user.restored', 'user.removed', 'post.created', 'post.updated', 'post.deleted', 'post.removed'] as const
type EventType = (typeof EVENT_TYPES)[number]
const PAGE_SIZE = 20

function SecretShown({ secret }: { secret: string | undefined }) {
  if (!secret) return null
  return (
    <p class="notice" role="status">
      Signing secret, shown only now: <code class="secret">{secret}</code>
    </p>
  )
}

function EndpointRow({ webhook, onChanged, onSecret }: { webhook: Webhook; onChanged: () => void; onSecret: (secret: string) => void }) {
  const path = { params: { path: { webhook_id: webhook.id } } }
  return (
    <tr>
      <td class="wrap-anywhere">
        <a href={href(`/webhooks/${webhook.id}`)}>{webhook.url}</a>
        {webhook.description && <div class="muted">{webhook.description}</div>}
      </td>
      <td>{webhook.events.join(', ')}</td>
      <td>{webhook.enabled ? (webhook.failing_since ? `On, failing since ${formatTime(webhook.failing_since)}` : 'On') : `Off${webhook.disabled_reason ? `: ${webhook.disabled_reason}` : ''}`}</td>
      <td class="row-actions">
        <ActionButton label="Send ping" run={() => call(() => client.POST('/api/v2/admin/webhooks/{webhook_id}/test', path))} onDone={onChanged} />
        <ActionButton
          label={webhook.enabled ? 'Turn off' : 'Turn on'}
          run={() => call(() => client.PATCH('/api/v2/admin/webhooks/{webhook_id}', { ...path, body: { enabled: !webhook.enabled } }))}
          onDone={onChanged}
        />
        <ActionButton
          label="Rotate secret"
          run={() => call(() => client.POST('/api/v2/admin/webhooks/{webhook_id}/rotate-secret', path))}
          onDone={(rotated) => onSecret((rotated as { secret: string }).secret)}
        />
        <Confirmed
          label="Remove"
          question={`Remove the endpoint ${webhook.url} and its deliveries?`}
          run={() => call(() => client.DELETE('/api/v2/admin/webhooks/{webhook_id}', path))}
          onDone={onChanged}
        />
      </td>
    </tr>
  )
}

function Endpoints() {
  const loaded = useLoad(() => call(() => client.GET('/api/v2/admin/webhooks', { params: { query: { page: 1, limit: 100 } } })), 'webhooks')
  const [url, setUrl] = useState('')
  const [description, setDescription] = useState('')
  const [events, setEvents] = useState<EventType[]>([...EVENT_TYPES])
  const [secret, setSecret] = useState<string>()
  const toggle = (type: EventType, on: boolean) => setEvents(on ? [...events, type] : events.filter((existing) => existing !== type))
  return (
    <>
      <h1>Webhooks</h1>
      <p class="muted">Each endpoint receives the change events it subscribes to, signed as the Standard Webhooks specification says, retried for about a day.</p>
      <SecretShown secret={secret} />
      <Loading loaded={loaded}>
        {(page) =>
          page.data.length === 0 ? (
            <p class="muted">No endpoints yet.</p>
          ) : (
            <TableFrame label="Webhook endpoints">
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">State</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((webhook) => (
                  <EndpointRow key={`${webhook.id}-${webhook.updated_at}`} webhook={webhook} onChanged={loaded.reload} onSecret={setSecret} />
                ))}
              </tbody>
            </TableFrame>
          )
        }
      </Loading>
      <h2>New endpoint</h2>
      <ActionForm
        label="Add endpoint"
        disabled={events.length === 0}
        run={() => call(() => client.POST('/api/v2/admin/webhooks', { body: { url: url.trim(), events, description: description.trim() } }))}
        onDone={(created) => {
          setSecret((created as { secret: string }).secret)
          setUrl('')
          setDescription('')
          loaded.reload()
        }}
      >
        <p>
          <label for="webhook-url">URL</label>
          <input id="webhook-url" type="url" required placeholder="https://example.com/webhooks" value={url} onInput={(event) => setUrl(event.currentTarget.value)} />
        </p>
        <p>
          <label for="webhook-description">Description</label>
          <input id="webhook-description" value={description} onInput={(event) => setDescription(event.currentTarget.value)} />
        </p>
        <fieldset class="event-choices">
          <legend>Events</legend>
          {EVENT_TYPES.map((type) => (
            <label key={type} class="checkbox">
              <input type="checkbox" checked={events.includes(type)} onChange={(event) => toggle(type, event.currentTarget.checked)} /> {type}
            </label>
          ))}
        </fieldset>
      </ActionForm>
    </>
  )
}

function DeliveryRow({ delivery, onChanged }: { delivery: WebhookDelivery; onChanged: () => void }) {
  return (
    <tr>
      <td>{delivery.event_type}</td>
      <td>
        {delivery.status}
        {delivery.next_attempt_at ? `, next attempt ${formatTime(delivery.next_attempt_at)}` : ''}
      </td>
      <td>{delivery.attempts}</td>
      <td>
        {delivery.last_status_code ?? '—'}
        {delivery.last_error && <div class="muted">{delivery.last_error}</div>}
      </td>
      <td>{formatTime(delivery.last_attempt_at)}</td>
      <td class="row-actions">
        <ActionButton label="Redeliver" run={() => call(() => client.POST('/api/v2/admin/webhooks/deliveries/{delivery_id}/redeliver', { params: { path: { delivery_id: delivery.id } } }))} onDone={onChanged} />
      </td>
    </tr>
  )
}

function Deliveries({ id, route }: { id: number; route: Route }) {
  const page = pageOf(route.query)
  const endpoint = useLoad(() => call(() => client.GET('/api/v2/admin/webhooks/{webhook_id}', { params: { path: { webhook_id: id } } })), `webhook-${id}`)
  const loaded = useLoad(
    () => call(() => client.GET('/api/v2/admin/webhooks/{webhook_id}/deliveries', { params: { path: { webhook_id: id }, query: { page, limit: PAGE_SIZE } } })),
    `deliveries-${id}-${page}`,
  )
  return (
    <>
      <p>
        <a href={href('/webhooks')}>All endpoints</a>
      </p>
      <Loading loaded={endpoint}>{(webhook) => <h1>Deliveries to {webhook.url}</h1>}</Loading>
      <Loading loaded={loaded}>
        {(deliveries) => (
          <>
            {deliveries.data.length === 0 ? (
              <p class="muted">No deliveries yet.</p>
            ) : (
              <TableFrame label="Deliveries">
                <thead>
                  <tr>
                    <th scope="col">Event</th>
                    <th scope="col">Status</th>
                    <th scope="col">Attempts</th>
                    <th scope="col">Last answer</th>
                    <th scope="col">Last attempt</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {deliveries.data.map((delivery) => (
                    <DeliveryRow key={delivery.id} delivery={delivery} onChanged={loaded.reload} />
                  ))}
                </tbody>
              </TableFrame>
            )}
            <Pager page={page} pageSize={PAGE_SIZE} total={deliveries.total_count} to={(next) => href(`/webhooks/${id}`, { page: next })} />
          </>
        )}
      </Loading>
    </>
  )
}

export function Webhooks({ route, id }: { route: Route; id: number | undefined }) {
  return id === undefined ? <Endpoints /> : <Deliveries key={id} id={id} route={route} />
}
