// `filter` on version 2's organization lists (docs/api.md "Filter"): the language is the
// content-fields slice's; what an organization filter may name is here. A private field is compared
// only on the organizations the caller is an admin or owner of (orgFieldLevel), a server field only
// by superusers.
import type { FilterVocabulary } from '../content-fields/index.js'
import { filterTooBroad } from '../content-fields/index.js'

export const ORG_FILTER: FilterVocabulary = {
  columns: { id: 'integer', name: 'text', slug: 'text', created_at: 'time' },
  nullable: new Set(),
  // The primary key and the unique slug index.
  indexed: new Set(['id', 'slug']),
  privateReaders: "an organization's admins and owners",
  records: 'organizations',
}

/** 422 for a filter no index narrows, on more organizations than it may check. */
export const orgFilterTooBroad = () => filterTooBroad(ORG_FILTER, 'add id = … or slug = … to the filter')
