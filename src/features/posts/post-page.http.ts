// A version-2 page of posts: the listing's query (page or cursor, limit, search, visibility,
// status) narrowed by what the route adds (an author, an organization), asked of the service
// for the caller, and answered in the cursor envelope.
import type { FastifyRequest } from 'fastify'

import { clientOf } from '../../api/common/client-info.js'
import { cursorPageRequest, toCursorPageEnvelope } from '../../api/common/page-envelope.js'
import { filled } from '../../shared/filters.js'
import type { PostFilter } from './post.js'
import { postReadsFor } from './post-expansions.http.js'
import type { PostStatus, Visibility } from './post-policy.js'
import type { SortKey } from './post-sort.js'
import { decodeSortedCursor, encodeSortedCursor } from './post-sort.js'
import type { PostCaller } from './posts.service.js'

export interface PostPageQuery {
  page: number
  limit: number
  cursor?: string
  search?: string
  tag?: string
  visibility?: Visibility
  status?: PostStatus
  expand?: string
  sort?: string
  filter?: string
}

export async function postPageV2(request: FastifyRequest, caller: PostCaller | null, query: PostPageQuery, narrowing: Pick<PostFilter, 'authorId' | 'orgId'>) {
  const filter = { ...narrowing, search: filled(query.search), tag: query.tag, visibility: query.visibility, status: query.status, filterText: filled(query.filter) }
  if (query.sort !== undefined) return sortedPostPage(request, caller, query, filter, request.server.services.posts.sortKeys(query.sort, caller))
  const pageRequest = cursorPageRequest(query)
  const { posts } = request.server.services
  const page = await posts.list(caller, filter, pageRequest, clientOf(request))
  const items = await posts.withDetails(page.items, caller)
  return toCursorPageEnvelope({ ...page, items }, pageRequest, await postReadsFor(request, caller, items, query.expand))
}

/** A page in the order `sort` asks for: its cursor names the sort and carries the last post's values of it. */
async function sortedPostPage(request: FastifyRequest, caller: PostCaller | null, query: PostPageQuery, filter: PostFilter, keys: readonly SortKey[]) {
  const { page, limit, cursor } = query
  const after = cursor === undefined ? undefined : decodeSortedCursor(keys, cursor)
  const { posts } = request.server.services
  const sorted = await posts.listSorted(caller, filter, keys, { page, limit, after }, clientOf(request))
  const items = await posts.withDetails(sorted.items, caller)
  const read = await postReadsFor(request, caller, items, query.expand)
  return {
    data: items.map(read),
    total_count: sorted.total,
    has_more: after === undefined ? (page - 1) * limit + items.length < sorted.total : sorted.next !== undefined,
    page,
    items_per_page: limit,
    next_cursor: sorted.next === undefined ? null : encodeSortedCursor(keys, sorted.next),
  }
}
