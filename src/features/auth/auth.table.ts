// The auth feature's tables: refresh tokens, login sessions and revoked access-token ids.
import type { NullableTimestamp,Timestamp } from '../../db/column-types.js'

export interface RefreshTokensTable {
  jti: string
  family_id: string
  user_id: number
  expires_at: Timestamp
  used_at: NullableTimestamp
  revoked_at: NullableTimestamp
  created_at: Timestamp
}

export interface SessionsTable {
  /** The refresh-token family id; every token of the session carries it as `sid`. */
  id: string
  user_id: number
  created_at: Timestamp
  last_used_at: Timestamp
  expires_at: Timestamp
  revoked_at: NullableTimestamp
  user_agent: string | null
  ip: string | null
  /** When the session last proved who it is (a sign-in by password, second factor or passkey, or a reauthentication). */
  proven_at: NullableTimestamp
  /** What that proof was: `password`, `second_factor`, `passkey` or `email_code`. */
  proof: string | null
}

export interface RevokedTokensTable {
  jti: string
  expires_at: Timestamp
}

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    refresh_tokens: RefreshTokensTable
    sessions: SessionsTable
    revoked_tokens: RevokedTokensTable
  }
}
