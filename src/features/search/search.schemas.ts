// GET /api/v2/search: its query and its page of hits.
import type { TSchema } from 'typebox'
import { Type } from 'typebox'

import { CursorPageEnvelopeSchema, CursorParameter } from '../../api/common/page-envelope.js'
import { ValidationErrorResponse } from '../../api/common/responses.js'
import { PageNumber } from '../../shared/page-number.js'
import { ExpandParameter, PostStatusParameter, TagParameter, VisibilityParameter } from '../posts/index.js'

export const SEARCH_TYPES = ['posts', 'comments', 'users'] as const
export type SearchType = (typeof SEARCH_TYPES)[number]

export const SearchQuery = Type.Object({
  q: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'Words to find, in the web\'s syntax: every word must match; "a phrase" matches its words in order; -word leaves out what has it; `or` between two words finds either. The last word also matches as the beginning of a word (search-as-you-type) unless the query ends in a space.',
    examples: ['"full text" search -draft'],
  }),
  type: Type.Union(
    SEARCH_TYPES.map((type) => Type.Literal(type)),
    {
      default: 'posts',
      description:
        "posts: ranked by relevance under the post policy; comments: ranked, those the caller reads whole (visible ones and their own hidden ones) on the posts the policy lists to them, which `visibility`, `status` and `tag` narrow; users: by a substring of the name or username (never the email), as GET /users?search= finds them",
    },
  ),
  page: PageNumber,
  limit: Type.Integer({ minimum: 1, maximum: 50, default: 10 }),
  cursor: Type.Optional(CursorParameter),
  visibility: Type.Optional(VisibilityParameter),
  tag: Type.Optional(TagParameter),
  status: Type.Optional(PostStatusParameter),
  expand: Type.Optional(ExpandParameter),
})

const Highlight = (description: string) => Type.String({ description: `${description}, as HTML: escaped, the matched words in <mark>` })

/** A page of hits of one type. */
export function searchPageOf(PostRead: TSchema, CommentRead: TSchema, UserRead: TSchema) {
  const PostHit = Type.Object(
    {
      type: Type.Literal('post'),
      rank: Type.Number({ description: 'Its relevance: higher first; comparable within one search only' }),
      highlights: Type.Object({ title: Highlight('Its title'), text: Highlight('The passages of its text that match best (its beginning when only the title matched)') }),
      post: PostRead,
    },
    { title: 'PostHit' },
  )
  const CommentHit = Type.Object(
    {
      type: Type.Literal('comment'),
      rank: Type.Number({ description: 'Its relevance: higher first; comparable within one search only' }),
      highlights: Type.Object({ text: Highlight('The passages of its text that match best') }),
      comment: CommentRead,
    },
    { title: 'CommentHit' },
  )
  const UserHit = Type.Object(
    {
      type: Type.Literal('user'),
      rank: Type.Null({ description: 'Users are listed as GET /users lists them, not ranked' }),
      highlights: Type.Object({ name: Highlight('Their name'), username: Highlight('Their username') }),
      user: UserRead,
    },
    { title: 'UserHit' },
  )
  return CursorPageEnvelopeSchema(Type.Union([PostHit, CommentHit, UserHit]), 'SearchPage')
}

/** A 422 of a search: a broken parameter, or a query with nothing to find. */
export const SearchRefusedResponse = Type.Object(
  {
    ...ValidationErrorResponse.properties,
    code: Type.Union([Type.Literal('validation_failed'), Type.Literal('search_query_empty')], {
      description: '`validation_failed`; `search_query_empty` for a query with no word to look for (only punctuation, or only excluded words).',
    }),
  },
  { title: 'SearchRefused' },
)
