// Sign-in by email: one row per request, holding its link token and code by their hashes only.
import type { NullableTimestamp, Timestamp } from '../../db/column-types.js'

export interface EmailLoginRequestsTable {
  /** SHA-256 of the link's token. */
  token_hash: string
  /** HMAC of the 6-digit code, keyed by the service's secret: a copied table gives no code away. */
  code_hash: string
  user_id: number
  email: string
  /** Codes tried against this request, right or wrong; at the limit it is spent. */
  attempts: number
  expires_at: Timestamp
  used_at: NullableTimestamp
  created_at: Timestamp
}
