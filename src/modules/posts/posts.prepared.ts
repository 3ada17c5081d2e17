// The posts module's hot queries, compiled once (src/db/prepared.ts). Each is its plain twin in
// posts.queries.ts; test/db/prepared.test.ts checks that both return the same rows.
import { preparedQuery } from '../../db/prepared.js'
import { insertLivePostQuery, newestPostsBeforeQuery, newestPostsByQuery, newestPostsQuery, postByIdQuery } from './posts.queries.js'

export const preparedPostById = preparedQuery(1, postByIdQuery, { singleRow: true })
export const preparedNewestPosts = preparedQuery(2, newestPostsQuery)
export const preparedNewestPostsBefore = preparedQuery(2, newestPostsBeforeQuery)
export const preparedNewestPostsBy = preparedQuery(3, newestPostsByQuery)
export const preparedInsertLivePost = preparedQuery(5, insertLivePostQuery)
