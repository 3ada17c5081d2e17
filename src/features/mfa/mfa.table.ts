// Second factors: TOTP secrets and recovery codes.
import type { Generated } from 'kysely'

import type { NullableTimestamp, Timestamp } from '../../db/column-types.js'

export interface TotpFactorsTable {
  user_id: number
  /** The shared secret, encrypted with a key derived from SECRET_KEY (secret-box.ts). */
  secret: string
  /** Null while pending: set up but not yet proven with a code. */
  confirmed_at: NullableTimestamp
  /** The last 30-second step whose code was accepted: a code is good once. */
  last_used_step: Generated<number>
  created_at: Timestamp
}

export interface RecoveryCodesTable {
  /** SHA-256 of the normalised code; the user was shown the only copy. */
  code_hash: string
  user_id: number
  used_at: NullableTimestamp
  created_at: Timestamp
}

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    totp_factors: TotpFactorsTable
    recovery_codes: RecoveryCodesTable
  }
}
