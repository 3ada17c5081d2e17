// Mail the service queued and sent (MAIL_PREVIEW, on in development): who it went to, its
// subject and state, and each message's text and links, so a person testing by hand follows a
// verification or reset link without an inbox.
import type { QueuedMail } from '../api.js'
import { ApiError, call, client } from '../api.js'
import { formatTime, Loading, pageOf, Pager, useLoad } from '../components.js'
import type { Route } from '../router.js'
import { href } from '../router.js'

const PAGE_SIZE = 20

function Message({ mail }: { mail: QueuedMail }) {
  return (
    <article class="mail">
      <h2>{mail.subject}</h2>
      <dl class="details">
        <div>
          <dt>To</dt>
          <dd>{mail.to}</dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>
            {mail.status}
            {mail.attempts > 1 ? ` after ${mail.attempts} attempts` : ''}
          </dd>
        </div>
        <div>
          <dt>Queued</dt>
          <dd>{formatTime(mail.created_at)}</dd>
        </div>
        <div>
          <dt>Sent</dt>
          <dd>{formatTime(mail.sent_at)}</dd>
        </div>
      </dl>
      {mail.last_error && <p class="error">{mail.last_error}</p>}
      {mail.links.length > 0 && (
        <ul class="mail-links">
          {mail.links.map((link) => (
            <li key={link}>
              <a href={link} rel="noreferrer">
                {link}
              </a>
            </li>
          ))}
        </ul>
      )}
      <details>
        <summary>Text</summary>
        <p class="post-text">{mail.text}</p>
      </details>
    </article>
  )
}

export function Mail({ route }: { route: Route }) {
  const page = pageOf(route.query)
  const loaded = useLoad(() => call(() => client.GET('/api/v2/admin/mail', { params: { query: { page, limit: PAGE_SIZE } } })), `${page}`)
  if (loaded.error instanceof ApiError && loaded.error.status === 404) {
    return (
      <>
        <h1>Mail</h1>
        <p>Mail preview is off. It is on in development (NODE_ENV=development), or with MAIL_PREVIEW=on.</p>
      </>
    )
  }
  return (
    <>
      <h1>Mail</h1>
      <p class="muted">Queued and sent mail, newest first. Sent mail is kept for seven days.</p>
      <Loading loaded={loaded}>
        {(mail) => (
          <>
            {mail.data.map((message) => (
              <Message key={message.id} mail={message} />
            ))}
            {mail.data.length === 0 && <p class="muted">No mail yet.</p>}
            <Pager page={page} pageSize={PAGE_SIZE} total={mail.total_count} to={(next) => href('/mail', { page: next })} />
          </>
        )}
      </Loading>
    </>
  )
}
