// Sign-in through identity providers: linked identities, flows in flight, one-time hand-off codes.
import type { Selectable } from 'kysely'

import type { NullableTimestamp, Timestamp } from '../../db/column-types.js'

export interface UserIdentitiesTable {
  id: string
  user_id: number
  /** The provider's name (OIDC_PROVIDERS). */
  provider: string
  /** The provider's `sub` for the person. */
  subject: string
  /** The email the provider gave at linking, for people to recognise the identity. */
  email: string | null
  created_at: Timestamp
}

export type UserIdentityRow = Selectable<UserIdentitiesTable>

export interface SignInFlowsTable {
  /** SHA-256 of the `state` sent to the provider. */
  state_hash: string
  /** SHA-256 of the HttpOnly cookie of the browser that started the flow. */
  browser_hash: string
  provider: string
  nonce: string
  code_verifier: string
  redirect_to: string
  /** The signed-in user this flow links the identity to; null for a sign-in. */
  link_user_id: number | null
  /** The frontend's PKCE challenge (S256) for the hand-off code; null: the code is bound to this browser's cookie instead. */
  handoff_challenge: string | null
  expires_at: Timestamp
  used_at: NullableTimestamp
  created_at: Timestamp
}

export interface IdentityLinkTicketsTable {
  /** SHA-256 of the ticket in the authorize URL. */
  ticket_hash: string
  /** SHA-256 of the HttpOnly cookie set on the browser that asked for the ticket. */
  browser_hash: string
  user_id: number
  provider: string
  redirect_to: string
  expires_at: Timestamp
  used_at: NullableTimestamp
  created_at: Timestamp
}

export interface SignInCodesTable {
  /** SHA-256 of the one-time code given to the frontend. */
  code_hash: string
  user_id: number
  /** How the sign-in was made (`oidc:google`), for the security log. */
  method: string
  /** The flow's PKCE challenge: the exchange must bring its verifier. */
  code_challenge: string | null
  /** SHA-256 of the hand-off cookie set on the browser the provider sent back (when no challenge was given). */
  browser_hash: string | null
  expires_at: Timestamp
  used_at: NullableTimestamp
  created_at: Timestamp
}
