// The tiers table.
import type { Generated } from 'kysely'

import type { Timestamp } from '../../db/column-types.js'

export interface TiersTable {
  id: Generated<number>
  name: string
  created_at: Timestamp
}
