// The users module's hot queries, compiled once (src/db/prepared.ts). Each is its plain twin in
// users.queries.ts; test/db/prepared.test.ts checks that both return the same rows.
import { preparedQuery } from '../../db/prepared.js'
import { searchByNameQuery, userByIdQuery, userInLiveSessionQuery, userPageAfterQuery, userPageQuery } from './users.queries.js'

export const preparedUserById = preparedQuery(1, userByIdQuery, { singleRow: true })
export const preparedUserInLiveSession = preparedQuery(2, userInLiveSessionQuery, { singleRow: true })
export const preparedUserPage = preparedQuery(2, userPageQuery)
export const preparedUserPageAfter = preparedQuery(2, userPageAfterQuery)

/** v1's search by name alone is the common one: compiled once for each way of matching. */
export const preparedSearchByName = {
  index: preparedQuery(4, searchByNameQuery('index')),
  'index-escaped': preparedQuery(4, searchByNameQuery('index-escaped')),
  like: preparedQuery(4, searchByNameQuery('like')),
}
