// The change signal over PostgreSQL's LISTEN/NOTIFY. LISTEN needs a session of its own, so it
// goes over DATABASE_DIRECT_URL when set (PgBouncer in transaction mode cannot hold one); NOTIFY
// is an ordinary statement and goes through the pool. A dropped listening connection is opened
// again after a second.
import { sql } from 'kysely'
import type pg from 'pg'

import type { ChangeSignal } from '../modules/event-streams/change-signal.js'
import { coalesced } from '../modules/event-streams/change-signal.js'
import type { Executor } from './schema.js'

const CHANNEL = 'change_events'
const COALESCE_MS = 20
const RECONNECT_MS = 1000

export async function postgresSignal(listenUrl: string, db: Executor, onError: (error: unknown) => void): Promise<ChangeSignal> {
  const { default: postgres } = await import('pg')
  const listeners: (() => void)[] = []
  let client: pg.Client | undefined
  let closed = false
  const connect = async (): Promise<void> => {
    const next = new postgres.Client({ connectionString: listenUrl })
    next.on('notification', (message) => {
      if (message.channel === CHANNEL) for (const listener of listeners) listener()
    })
    next.on('error', (error) => {
      onError(error)
      void next.end().catch(() => {})
      if (client === next) client = undefined
      if (!closed) setTimeout(() => void connect().catch(onError), RECONNECT_MS).unref()
    })
    await next.connect()
    await next.query(`LISTEN ${CHANNEL}`)
    client = next
  }
  await connect()
  return {
    notify: coalesced(() => void sql`select pg_notify(${CHANNEL}, '')`.execute(db).catch(onError), COALESCE_MS),
    onSignal: (listener) => void listeners.push(listener),
    async close() {
      closed = true
      await client?.end().catch(() => {})
    },
  }
}
