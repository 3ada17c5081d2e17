// The change signal over PostgreSQL's LISTEN/NOTIFY. LISTEN needs a session of its own, so it
// goes over DATABASE_DIRECT_URL when set (PgBouncer in transaction mode cannot hold one); NOTIFY
// is an ordinary statement and goes through the pool. A dropped listening connection is opened
// again after a second.
import { sql } from 'kysely'
import type pg from 'pg'

import type { ChangeSignal } from '../shared/change-signal.js'
import { coalesced } from '../shared/coalesced.js'
import type { Executor } from './schema.js'

const CHANNEL = 'change_events'
const COALESCE_MS = 20
const RECONNECT_MS = 1000

export async function postgresSignal(listenUrl: string, db: Executor, onOutage: (error: unknown) => void): Promise<ChangeSignal> {
  const { default: postgres } = await import('pg')
  // An outage is logged once, not at every reconnection attempt.
  let away = false
  const onError = (error: unknown) => {
    if (away) return
    away = true
    onOutage(error)
  }
  const listeners: (() => void)[] = []
  let client: pg.Client | undefined
  let closed = false
  const connect = async (): Promise<void> => {
    if (closed) return
    const next = new postgres.Client({ connectionString: listenUrl })
    let lost = false
    // Once per client, whether it failed to connect, errored or was ended by the server.
    const reconnect = (error: unknown) => {
      if (lost || closed) return
      lost = true
      onError(error)
      void next.end().catch(() => {})
      if (client === next) client = undefined
      if (!closed) setTimeout(() => void connect(), RECONNECT_MS).unref()
    }
    next.on('notification', (message) => {
      if (message.channel === CHANNEL) for (const listener of listeners) listener()
    })
    next.on('error', reconnect)
    next.on('end', () => reconnect(new Error('the listening connection ended')))
    try {
      await next.connect()
      await next.query(`LISTEN ${CHANNEL}`)
    } catch (error) {
      reconnect(error)
      return
    }
    away = false
    client = next
  }
  // The service starts whether or not the listener connects; it keeps trying every second.
  await connect()
  return {
    notify: coalesced(() => void sql`select pg_notify(${CHANNEL}, '')`.execute(db).catch(onError), COALESCE_MS),
    onSignal: (listener) => void listeners.push(listener),
    async close() {
      closed = true
      const current = client
      client = undefined
      await current?.end().catch(() => {})
    },
  }
}
