// `filter` on version 2's post lists (docs/api.md "Filter"): the language is the content-fields
// slice's; what a post filter may name is here. The tree is compiled inside the post policy's own
// condition (post-filter.repository.ts).
import type { FilterKind, FilterVocabulary } from '../content-fields/index.js'
import { filterTooBroad, narrowsByIndex } from '../content-fields/index.js'
import { POST_FORMATS } from './markdown.js'
import type { PostFilter } from './post.js'
import { COMMENT_SETTINGS, POST_STATUSES, VISIBILITIES } from './post-policy.js'

/** The columns a post filter may name, as the API shows them. */
export const FILTER_COLUMNS = {
  id: 'integer',
  author_id: 'integer',
  org_id: 'integer',
  title: 'text',
  text: 'text',
  slug: 'text',
  visibility: { oneOf: VISIBILITIES },
  status: { oneOf: POST_STATUSES },
  format: { oneOf: POST_FORMATS },
  comments: { oneOf: COMMENT_SETTINGS },
  comment_count: 'integer',
  reaction_count: 'integer',
  created_at: 'time',
  updated_at: 'time',
  published_at: 'time',
} as const satisfies Record<string, FilterKind>

export const POST_FILTER: FilterVocabulary = {
  columns: FILTER_COLUMNS,
  nullable: new Set(['org_id', 'published_at']),
  indexed: new Set(['author_id', 'org_id', 'id']),
  privateReaders: "a post's editors",
  records: 'posts',
}

/** 422 for a filter no index narrows, of a list of more posts than it may check. */
export const postFilterTooBroad = () => filterTooBroad(POST_FILTER, 'narrow the list (author_id, an organization\'s posts), or add author_id = … or org_id = … to the filter')

/** Whether an index narrows the list to an author's or an organization's posts, by its path or its filter. */
export function narrowedByIndex(filter: PostFilter): boolean {
  return filter.authorId !== undefined || filter.orgId !== undefined || filter.tag !== undefined || (filter.expression !== undefined && narrowsByIndex(filter.expression, POST_FILTER))
}
