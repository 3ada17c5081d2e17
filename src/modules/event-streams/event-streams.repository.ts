// The event-streams module's SQL: tickets are spent by one conditional UPDATE, so a ticket opens
// one stream however many processes are asked at once.
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'

export interface NewTicketRow {
  ticket_hash: string
  user_id: number
  jti: string
  session_id: string
  token_expires_at: number
  expires_at: string
}

export async function insertTicket(db: Executor, row: NewTicketRow): Promise<void> {
  await db.insertInto('stream_tickets').values(row).execute()
}

/** Spends a live, unused ticket; undefined when there is none. */
export function spendTicket(db: Executor, ticketHash: string): Promise<{ user_id: number; jti: string; session_id: string; token_expires_at: number | string } | undefined> {
  const now = nowIso()
  return db
    .updateTable('stream_tickets')
    .set({ used_at: now })
    .where('ticket_hash', '=', ticketHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['user_id', 'jti', 'session_id', 'token_expires_at'])
    .executeTakeFirst()
}

export async function deleteTicketsExpiredBefore(db: Executor, before: string): Promise<void> {
  await db.deleteFrom('stream_tickets').where('expires_at', '<', before).execute()
}

/** This module's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const eventStreamsFunctions = { insertTicket, spendTicket, deleteTicketsExpiredBefore }
export type EventStreamsRepository = Repository<typeof eventStreamsFunctions>
