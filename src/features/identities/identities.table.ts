// Sign-in through identity providers: the identities linked to users.
import type { Selectable } from 'kysely'

import type { Timestamp } from '../../db/column-types.js'

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

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    user_identities: UserIdentitiesTable
  }
}
