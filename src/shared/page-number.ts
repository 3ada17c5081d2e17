import { Type } from 'typebox'

/** The `page` query parameter of every list: 1-based, within PostgreSQL's integer range. */
export const PageNumber = Type.Integer({ minimum: 1, maximum: 2_147_483_647, default: 1 })
