// Passkeys: users' WebAuthn credentials.
import type { ColumnType, Generated, Selectable } from 'kysely'

import type { NullableTimestamp, Timestamp } from '../../db/column-types.js'

export interface PasskeysTable {
  id: string
  user_id: number
  /** base64url, as the authenticator names the credential. */
  credential_id: string
  /** The COSE public key, base64url. */
  public_key: string
  /** bigint: a string from PostgreSQL. */
  counter: ColumnType<number | string, number | undefined, number>
  /** Comma-separated AuthenticatorTransport values, as the browser reported them. */
  transports: string | null
  name: string
  /** singleDevice or multiDevice (synced). */
  device_type: string
  backed_up: Generated<number>
  created_at: Timestamp
  last_used_at: NullableTimestamp
}

export type PasskeyRow = Selectable<PasskeysTable>

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    passkeys: PasskeysTable
  }
}
