import { Type } from 'typebox'

/** Positive and within PostgreSQL's integer range, so an id never reaches the database out of range. */
export const RecordId = Type.Integer({ minimum: 1, maximum: 2_147_483_647 })
