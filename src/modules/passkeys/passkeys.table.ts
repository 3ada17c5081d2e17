// Passkeys: users' WebAuthn credentials, and the challenges handed out for them.
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

/** What a challenge was handed out for. */
export type ChallengePurpose = 'register' | 'sign_in' | 'second_factor' | 'reauthenticate'

export interface WebauthnChallengesTable {
  /** SHA-256 of the challenge (base64url) the browser signs; found again from the response's clientDataJSON. */
  challenge_hash: string
  purpose: ChallengePurpose
  /** register and reauthenticate: the signed-in user; sign_in: the user named, or null (discoverable); second_factor: the challenge's user. */
  user_id: number | null
  /** second_factor: the mfa_token it belongs to. */
  mfa_token_hash: string | null
  expires_at: Timestamp
  used_at: NullableTimestamp
  created_at: Timestamp
}
