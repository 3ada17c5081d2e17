// The moderation slice's tables (migration 2026-12-02-01-moderation). The ban itself lives on the
// users row (users.table.ts names its columns), so every read of a user carries it for free.
import type { Generated } from 'kysely'

import type { NullableTimestamp, Timestamp } from '../../db/column-types.js'

export interface ImpersonationsTable {
  /** The session it opened: its token names it, and ending the impersonation ends that session. */
  id: string
  user_id: number
  superuser_id: number
  mode: string
  reason: string
  created_at: Timestamp
  expires_at: Timestamp
  ended_at: NullableTimestamp
}

export interface ImpersonationRequestsTable {
  id: Generated<number>
  impersonation_id: string
  method: string
  /** The route's template (/api/v2/posts/{post_id}), never the URL with its query. */
  route: string
  status: number
  created_at: Timestamp
}

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    impersonations: ImpersonationsTable
    impersonation_requests: ImpersonationRequestsTable
  }
}
