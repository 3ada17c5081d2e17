// Single-use tokens mailed for email verification, password reset and undoing an email change.
import type { NullableTimestamp,Timestamp } from '../../db/column-types.js'

export interface UserTokensTable {
  /** SHA-256 of the token; the token itself exists only in the mail that carries it. */
  token_hash: string
  user_id: number
  purpose: 'verify_email' | 'reset_password' | 'undo_email_change'
  email: string
  expires_at: Timestamp
  used_at: NullableTimestamp
  created_at: Timestamp
}
