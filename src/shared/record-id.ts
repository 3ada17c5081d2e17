import { Type } from 'typebox'

/** PostgreSQL's integer range: ids, and the counts kept beside rows. */
export const MAX_ID = 2_147_483_647

/** Positive and within PostgreSQL's integer range, so an id never reaches the database out of range. */
export const RecordId = Type.Integer({ minimum: 1, maximum: MAX_ID })
