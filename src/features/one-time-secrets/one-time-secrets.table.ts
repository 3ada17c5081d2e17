// Single-use secrets by purpose (one_time_secrets, migrations 2026-11-26-01 and 2026-11-27-01):
// each stored only by its hash, spent once, expiring; a code a person types also keeps an
// attempt count.
import type { NullableTimestamp, Timestamp } from '../../db/column-types.js'

export interface OneTimeSecretsTable {
  /** SHA-256 of the secret handed out (for a typed code: of the row's own random handle). */
  secret_hash: string
  purpose: string
  user_id: number | null
  /** HMAC of the typed code, keyed by the service's secret and salted by secret_hash. */
  code_hash: string | null
  /** A value the spending request must present too (a PKCE challenge, a browser's cookie hash), or null. */
  binding: string | null
  /** Codes tried against this row, right or wrong; at the limit it is spent. */
  attempts: number
  /** What the secret carries for its purpose (JSON). */
  data: string | null
  expires_at: Timestamp
  used_at: NullableTimestamp
  created_at: Timestamp
}

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    one_time_secrets: OneTimeSecretsTable
  }
}
