// `filter` on version 2's user lists (docs/api.md "Filter"): the language is the content-fields
// slice's; what a user filter may name is here. A private field is compared only on the caller's
// own row (userFieldLevel), a server field only by superusers.
import type { FilterVocabulary } from '../content-fields/index.js'
import { filterTooBroad } from '../content-fields/index.js'

export const USER_FILTER: FilterVocabulary = {
  columns: { id: 'integer', name: 'text', username: 'text', is_verified: 'boolean', created_at: 'time' },
  nullable: new Set(),
  // The primary key and the unique username index.
  indexed: new Set(['id', 'username']),
  privateReaders: 'the user themselves',
  records: 'users',
}

/** 422 for a filter no index narrows, on more users than it may check. */
export const userFilterTooBroad = () => filterTooBroad(USER_FILTER, 'add id = … or username = … to the filter')
