// The reports slice's table.
import type { ColumnType, Generated, Selectable } from 'kysely'

import type { NullableTimestamp, Timestamp } from '../../db/column-types.js'

export interface ReportsTable {
  id: Generated<number>
  reporter_id: number
  /** post, comment or user. */
  target: string
  target_id: number
  /** The author of the post or comment, or the user reported. */
  target_owner_id: number
  /** The organization of the reported post (or of the comment's post): its admins' queue. */
  org_id: number | null
  reason: string
  note: string | null
  /** open, dismissed or actioned. */
  status: ColumnType<string, string | undefined, string>
  /** What resolved it: dismiss, hide, remove or ban. */
  action: string | null
  resolved_by: number | null
  resolved_at: NullableTimestamp
  created_at: Timestamp
}

export type ReportRow = Selectable<ReportsTable>

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    reports: ReportsTable
  }
}
