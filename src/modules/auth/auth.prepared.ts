// Asked on every authenticated request: compiled once (src/db/prepared.ts). Its plain twin is in
// auth.queries.ts; test/db/prepared.test.ts checks that both return the same rows.
import { preparedQuery } from '../../db/prepared.js'
import { revokedTokenQuery } from './auth.queries.js'

export const preparedRevokedToken = preparedQuery(1, revokedTokenQuery, { singleRow: true })
