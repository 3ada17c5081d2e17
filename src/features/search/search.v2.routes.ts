// GET /api/v2/search (docs/api.md "Search"): posts ranked by relevance under the post policy, or
// users by name and username under the users list's rules. Each type is its own slice's answer;
// this route reads the query, pages and shapes the hits.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

import { clientOf } from '../../api/common/client-info.js'
import { cursorPageRequest, toCursorPageEnvelope } from '../../api/common/page-envelope.js'
import { errorResponses } from '../../api/common/responses.js'
import { optionalBearerOrApiKey } from '../../api/common/security-scheme.js'
import { RuleViolation } from '../../shared/errors.js'
import type { SearchAfter } from '../../shared/search-page.js'
import { snippetHtml } from '../../shared/search-text.js'
import { CommentRead, toCommentRead } from '../comments/index.js'
import { postCallerOf, postReadsFor, postShapesV2 } from '../posts/index.js'
import { toUserReadV2, userReader, userShapesV2 } from '../users/index.js'
import { decodeHitCursor, encodeHitCursor } from './hit-cursor.http.js'
import { searchPageOf,SearchQuery, SearchRefusedResponse } from './search.schemas.js'
import { markedSubstring } from './user-highlights.js'

/** The longest text GET /users?search= takes. */
const USER_SEARCH_MAX_LENGTH = 50

const searchRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { posts, comments, users } = app.services
  const { read: PostRead } = postShapesV2(app.services.contentFields)
  const { read: UserRead } = userShapesV2(app.services.contentFields.shapes('users'))

  app.get(
    '/search',
    {
      schema: {
        tags: ['search'],
        summary: 'Find posts or comments by relevance, or users by name',
        description:
          'Posts: full-text, ranked, under the post policy (the caller sees only hits they may list, and `total_count` counts only those), each with its title and best passages highlighted. Comments: full-text, ranked, on the posts the caller may list, each with its best passages highlighted. Users: as GET /users?search= finds them. Pages by number or by `next_cursor`.',
        security: optionalBearerOrApiKey,
        querystring: SearchQuery,
        response: { 200: searchPageOf(PostRead, CommentRead, UserRead), ...errorResponses(400, 422), 422: SearchRefusedResponse },
      },
    },
    async (request) => {
      const { q, type, page, limit, cursor, visibility, status, tag, expand } = request.query
      if (type === 'users') {
        // A user search's text is held to what GET /users?search= takes.
        if ([...q].length > USER_SEARCH_MAX_LENGTH) throw new RuleViolation('q', `A search of users is at most ${USER_SEARCH_MAX_LENGTH} characters`, 'string_too_long', { location: 'query' })
        const pageRequest = cursorPageRequest({ page, limit, cursor })
        const found = await users.list(q, pageRequest, undefined, request.caller?.user ?? null)
        const read = userReader(request, toUserReadV2)
        return toCursorPageEnvelope(found, pageRequest, (user) => ({
          type: 'user' as const,
          rank: null,
          highlights: { name: markedSubstring(user.name, q), username: markedSubstring(user.username, q) },
          user: read(user),
        }))
      }
      const caller = postCallerOf(request)
      const after = cursor === undefined ? undefined : decodeHitCursor(cursor)
      // The envelope of a page of ranked hits, whatever they are hits of.
      const hitsPage = (found: { hits: readonly unknown[]; total: number; next: SearchAfter | undefined }) => ({
        total_count: found.total,
        has_more: after === undefined ? (page - 1) * limit + found.hits.length < found.total : found.next !== undefined,
        page,
        items_per_page: limit,
        next_cursor: found.next === undefined ? null : encodeHitCursor(found.next),
      })
      if (type === 'comments') {
        const found = await comments.search(caller, q, { visibility, status, tag }, { page, limit, after }, clientOf(request))
        return {
          data: found.hits.map((hit) => ({ type: 'comment' as const, rank: hit.rank, highlights: { text: snippetHtml(hit.snippet) }, comment: toCommentRead(hit.comment) })),
          ...hitsPage(found),
        }
      }
      const found = await posts.search(caller, q, { visibility, status, tag }, { page, limit, after }, clientOf(request))
      const items = await posts.withDetails(found.hits.map((hit) => hit.post), caller)
      const read = await postReadsFor(request, caller, items, expand)
      return {
        data: found.hits.map((hit, i) => ({
          type: 'post' as const,
          rank: hit.rank,
          highlights: { title: snippetHtml(hit.snippet.title), text: snippetHtml(hit.snippet.text) },
          post: read(items[i]!),
        })),
        ...hitsPage(found),
      }
    },
  )
}

export default searchRoutes
