// The post resource's shapes (docs/api.md: input rules).
import { Type } from 'typebox'

import { PageNumber } from '../../shared/page-number.js'
import { RecordId } from '../../shared/record-id.js'

// At least one visible character: a title of spaces is as empty as no title.
const Title = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', examples: ['Hello, world'] })
const Text = Type.String({ minLength: 1, maxLength: 10_000, pattern: '\\S', examples: ['My first post.'] })
const MediaUrl = Type.Union(
  [Type.String({ format: 'uri', maxLength: 2048, pattern: '^https?://', examples: ['https://example.com/cat.jpg'] }), Type.Null()],
  { description: 'An http(s) URL, or null for none' },
)

export const PostIdParams = Type.Object({ post_id: RecordId })

export const PostRead = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    text: Type.String(),
    media_url: Type.Union([Type.String(), Type.Null()]),
    author_id: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'PostRead' },
)

export const PostCreate = Type.Object(
  { title: Title, text: Text, media_url: Type.Optional(MediaUrl) },
  { additionalProperties: false, title: 'PostCreate' },
)

export const PostUpdate = Type.Object(
  { title: Type.Optional(Title), text: Type.Optional(Text), media_url: Type.Optional(MediaUrl) },
  { additionalProperties: false, minProperties: 1, title: 'PostUpdate' },
)

export const PostLimit = Type.Integer({ minimum: 1, maximum: 100, default: 10 })
export const PostSearch = Type.String({ maxLength: 50, description: 'Case-insensitive substring of the title or text' })

/** The validated listing variant: page, limit, search, and an optional author. */
export const PostListQuery = Type.Object({
  page: PageNumber,
  limit: PostLimit,
  search: Type.Optional(PostSearch),
  author_id: Type.Optional(RecordId),
})
