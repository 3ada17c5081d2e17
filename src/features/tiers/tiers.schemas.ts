import { Type } from 'typebox'

import { RecordId } from '../../shared/record-id.js'

export const TierName = Type.String({ minLength: 1, maxLength: 50, pattern: '^[A-Za-z0-9_-]+$', examples: ['pro'] })

export const TierIdParams = Type.Object({ tier_id: RecordId })

export const TierRead = Type.Object(
  { id: Type.Integer(), name: Type.String(), created_at: Type.String({ format: 'date-time' }) },
  { title: 'TierRead' },
)

export const TierCreate = Type.Object({ name: TierName }, { additionalProperties: false, title: 'TierCreate' })

const QuotaBytes = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: "Bytes of completed files each of the tier's users may keep; null: STORAGE_QUOTA_BYTES." })
const QuotaFiles = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Files each user may keep; null: STORAGE_QUOTA_FILES.' })

/** Version 2 reads and writes a tier's storage quota too. */
export const TierReadV2 = Type.Object({ ...TierRead.properties, storage_bytes: QuotaBytes, storage_files: QuotaFiles }, { title: 'TierReadV2' })
export const TierCreateV2 = Type.Object(
  { name: TierName, storage_bytes: Type.Optional(QuotaBytes), storage_files: Type.Optional(QuotaFiles) },
  { additionalProperties: false, title: 'TierCreateV2' },
)
export const TierQuotaUpdate = Type.Object(
  { storage_bytes: Type.Optional(QuotaBytes), storage_files: Type.Optional(QuotaFiles) },
  { additionalProperties: false, minProperties: 1, title: 'TierQuotaUpdate' },
)
