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
import type { PostCaller } from './posts.service.js'

export interface PostPageQuery {
  page: number
  limit: number
  cursor?: string
  search?: string
  visibility?: Visibility
  status?: PostStatus
  expand?: string
}

export async function postPageV2(request: FastifyRequest, caller: PostCaller | null, query: PostPageQuery, narrowing: Pick<PostFilter, 'authorId' | 'orgId'>) {
  const pageRequest = cursorPageRequest(query)
  const filter = { ...narrowing, search: filled(query.search), visibility: query.visibility, status: query.status }
  const { posts } = request.server.services
  const page = await posts.list(caller, filter, pageRequest, clientOf(request))
  const items = await posts.withDetails(page.items, caller)
  return toCursorPageEnvelope({ ...page, items }, pageRequest, await postReadsFor(request, caller, items, query.expand))
}
