// When an outbox (mail, webhook deliveries) next has work: the earliest pending row's next attempt,
// or its claim's end when another worker holds it (a worker killed mid-send leaves its claim to
// run out). An idle relay sleeps until then instead of polling.
import type { RawBuilder } from 'kysely'
import { sql } from 'kysely'

import type { Executor } from './schema.js'

/** Epoch ms of the outbox's next due row among those `claimable` allows; undefined when nothing is pending. */
export async function nextDueAt(db: Executor, table: 'mail_outbox' | 'webhook_deliveries', claimable: RawBuilder<unknown> = sql`true`): Promise<number | undefined> {
  const { rows } = await sql<{ due: number | string | null }>`
    select min(case when claimed_until is not null and claimed_until > next_attempt_at then claimed_until else next_attempt_at end) as due
    from ${sql.table(table)} where status = 'pending' and ${claimable}`.execute(db)
  const due = rows[0]?.due
  return due === null || due === undefined ? undefined : Number(due)
}
