import { Type } from 'typebox'

import { RecordId } from '../../shared/record-id.js'

export const TierName = Type.String({ minLength: 1, maxLength: 50, pattern: '^[A-Za-z0-9_-]+$', examples: ['pro'] })

export const TierIdParams = Type.Object({ tier_id: RecordId })

export const TierRead = Type.Object(
  { id: Type.Integer(), name: Type.String(), created_at: Type.String({ format: 'date-time' }) },
  { title: 'TierRead' },
)

export const TierCreate = Type.Object({ name: TierName }, { additionalProperties: false, title: 'TierCreate' })
