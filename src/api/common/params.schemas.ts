// Path and paging parameters every version and resource shares.
import { Type } from 'typebox'

import { RecordId } from '../../shared/record-id.js'

export const UserIdParams = Type.Object({ user_id: RecordId })

export const PageSize = Type.Integer({ minimum: 1, maximum: 100, default: 10 })
