// The post resource's shapes (docs/api.md: input rules).
import type { TObject } from 'typebox'
import { Type } from 'typebox'

import { CursorPageEnvelopeSchema, CursorParameter } from '../../api/common/page-envelope.js'
import { ValidationErrorResponse } from '../../api/common/responses.js'
import { localeTag } from '../../shared/locale.js'
import { PageNumber } from '../../shared/page-number.js'
import { RecordId } from '../../shared/record-id.js'
import type { ContentFields } from '../content-fields/index.js'
import { FIELD_NAME, filterParameter } from '../content-fields/index.js'
import { FileRead } from '../files/index.js'
import { orgShapesV2 } from '../orgs/index.js'
import { MyReactions, ReactionCounts } from '../reactions/index.js'
import { userShapesV2 } from '../users/index.js'
import { POST_FILTER } from './filter-language.js'
import { POST_RELATIONS } from './post-relations.js'
import { MAX_SORT_KEYS, SORT_COLUMNS } from './post-sort.js'
import { SLUG_MAX_LENGTH, SLUG_PATTERN } from './slugs.js'
import { MAX_TAG_LENGTH, MAX_TAGS } from './tags.js'

// At least one visible character: a title of spaces is as empty as no title.
const Title = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', examples: ['Hello, world'] })
const Text = Type.String({ minLength: 1, maxLength: 10_000, pattern: '\\S', examples: ['My first post.'] })
/** Version 2's longer texts (a Markdown article): at most this many characters (Unicode code points). */
export const TEXT_MAX_LENGTH_V2 = 100_000
const TextV2 = Type.String({
  minLength: 1,
  maxLength: TEXT_MAX_LENGTH_V2,
  pattern: '\\S',
  examples: ['My first post.'],
  description: 'Plain text, or Markdown when `format` is markdown',
})
/**
 * The body limit of a v2 post's create and edit: its longest text as JSON can write it (every
 * character an escaped surrogate pair, 12 bytes) and room for the rest; other JSON bodies keep 1 MiB.
 */
export const POST_BODY_LIMIT_BYTES = 1.5 * 1024 * 1024
const Format = Type.Union([Type.Literal('plain'), Type.Literal('markdown')], {
  description: 'How `text` is written: plain text (shown as it is), or Markdown, rendered to sanitized `html` when the text is written',
})
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

/** `tag` on a post list: only posts with this tag (compared normalized). */
export const TagParameter = Type.String({ minLength: 1, maxLength: 64, description: 'Only posts with this tag (trimmed and lower-cased as tags are)' })

/** The validated listing variant: page, limit, search, and an optional author; `tag` as version 2's lists take it (an addition the specification leaves room for). */
export const PostListQuery = Type.Object({
  page: PageNumber,
  limit: PostLimit,
  search: Type.Optional(PostSearch),
  author_id: Type.Optional(RecordId),
  tag: Type.Optional(TagParameter),
})

// Version 2: who may read a post (docs/api.md "Who reads a post").
export const Visibility = Type.Union(
  [Type.Literal('public'), Type.Literal('unlisted'), Type.Literal('org'), Type.Literal('private')],
  { description: 'public: anyone; unlisted: anyone with its id, never listed; org: members of `org_id`; private: its author' },
)
export const PostStatus = Type.Union(
  [Type.Literal('draft'), Type.Literal('scheduled'), Type.Literal('published')],
  { description: 'A draft is read by its author and, in an organization, by its admins and owners; a scheduled post is read as a draft until its `publish_at`, when it is published' },
)
export const CommentSetting = Type.Union(
  [Type.Literal('open'), Type.Literal('members'), Type.Literal('closed')],
  { description: "Who may comment: open (any signed-in reader), members (its organization's members and its author), closed (nobody). Never on a draft." },
)
const OrgId = Type.Union([RecordId, Type.Null()], { description: 'The organization the post belongs to (its author must be a member); null for none' })

const Attachments = Type.Array(RecordId, {
  maxItems: 20,
  uniqueItems: true,
  description: "Ids of the author's own completed files (POST /files, /uploads); an update replaces the list, detaching the files left out",
})

const Slug = Type.String({
  minLength: 1,
  maxLength: SLUG_MAX_LENGTH,
  pattern: SLUG_PATTERN,
  description: "Its address under its owner (GET /posts/by-slug/{owner}/{slug}): lowercase letters and digits in words joined by hyphens, unique among the owner's posts (409 post_slug_taken). Made from the title when left out; an old one keeps finding the post",
})

export const PostBySlugParams = Type.Object({
  owner: Type.String({ minLength: 1, maxLength: 100, description: "The post's organization's slug, or its author's username" }),
  slug: Type.String({ minLength: 1, maxLength: SLUG_MAX_LENGTH, pattern: '^[a-z0-9-]+$', description: 'Its slug, or one it had' }),
})

const relationNames = POST_RELATIONS.join('|')
/** `expand`: the related records to return inline, each read under its own rule. */
export const Expand = Type.String({
  maxLength: 40,
  pattern: `^(?:${relationNames})(?:,(?:${relationNames}))*$`,
  description: "Related records to return inline in each post's `expand`, comma-separated: `author` (the author as GET /users/{user_id} reads them), `org` (the organization as GET /orgs/{org} reads it; null for a caller who may not read it), `attachments` (always inline, accepted for symmetry). One query per relation per page",
  examples: ['author,org'],
})
export const ExpandQuery = Type.Object({ expand: Type.Optional(Expand) })

const sortKey = `-?(?:${SORT_COLUMNS.join('|')}|fields\\.${FIELD_NAME.source.slice(1, -1)})`
/** `sort`: up to three columns or declared fields, `-` for descending. */
export const Sort = Type.String({
  maxLength: 160,
  pattern: `^${sortKey}(?:,${sortKey}){0,${MAX_SORT_KEYS - 1}}$`,
  description: `The order of the list: up to ${MAX_SORT_KEYS} of ${SORT_COLUMNS.map((column) => `\`${column}\``).join(', ')} and \`fields.<name>\` (a declared field the caller may read, not a list), comma-separated, \`-\` before one for descending; ties are broken by id, in the first key's direction. Posts without the field come after the others, ascending. Newest first (by id) when left out. Cursor pages continue in the same order; a cursor from another sort is 422. A sort on a field or on several keys is for lists of at most 10,000 posts (422 sort_too_broad)`,
  examples: ['-reaction_count,-created_at', 'title'],
})

/** `filter`: the filter language (content-fields' filter-language.ts) over a post's columns and fields. */
export const Filter = filterParameter(POST_FILTER, 'fields.rating >= 4 && fields.tags ~ "go" || author_id = 12')

/** `expand`'s records, in the shapes (and with the custom fields) of their own routes. */
const postExpansions = (UserReadV2: TObject, OrgRead: TObject) =>
  Type.Object(
    {
      author: Type.Optional(Type.Union([UserReadV2, Type.Null()], { description: 'Null once the author is deleted' })),
      org: Type.Optional(Type.Union([OrgRead, Type.Null()], { description: 'Null for a post in no organization, and for a caller who may not read the organization (its members and superusers may)' })),
    },
    { title: 'PostExpansions', description: 'Present when `expand` asks for a relation' },
  )

const PostReadV2 = Type.Object(
  {
    ...PostRead.properties,
    visibility: Visibility,
    status: PostStatus,
    org_id: Type.Union([Type.Integer(), Type.Null()]),
    published_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it was first published; null while it never has been' }),
    publish_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'A scheduled post: when it is published (within a minute); null for any other' }),
    slug: Type.String({ description: "Its address under its owner: GET /posts/by-slug/{owner}/{slug}, the owner being its organization's slug or its author's username" }),
    format: Format,
    html: Type.Union([Type.String(), Type.Null()], {
      description: "A Markdown post's text as sanitized HTML, safe to put in a page as it is: no script, no event handler, links and images over http(s) only (mailto links too), and `rel=\"noopener nofollow ugc\"` on links to other sites. Null for a plain post",
    }),
    attachments: Type.Array(FileRead, { description: "Its files, oldest first; each read under the post's own rule" }),
    comments: CommentSetting,
    comment_count: Type.Integer({ description: 'Its visible comments and replies' }),
    reaction_counts: ReactionCounts,
    my_reactions: MyReactions,
    tags: Type.Array(Type.String(), { description: 'Its tags, normalized: lower-cased, trimmed, Unicode NFC' }),
    language: Type.Union([Type.String(), Type.Null()], { description: "The language it is written in (a BCP 47 tag), which search stems its words by: its author's locale when they named none; null when neither is known" }),
  },
  { title: 'PostReadV2' },
)

/** The language a post is written in: what search stems its words by (docs/api.md "Search"). */
const PostLanguage = localeTag("The language it is written in, such as en, de or pt-BR (search stems its words by it); its author's locale when left out")

/** A post's tags as a writer sends them: normalized by the service (tags.ts). */
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: 20,
  description: `At most ${MAX_TAGS} once normalized: each trimmed, lower-cased and in Unicode NFC, of 1 to ${MAX_TAG_LENGTH} characters; repeats are one tag. On an update, the post's tags from now on`,
  examples: [['go', 'databases']],
})

/** When a scheduled post goes out: a time to come, within a year (docs/api.md "Scheduled publishing"). */
const PublishAt = Type.String({ format: 'date-time', description: 'Schedules the post: it is read as a draft (status `scheduled`) until this time, then published within a minute. A time to come, at most a year away; with it, `status` is left out or `scheduled`' })


export const PostCreateV2 = Type.Object(
  { ...PostCreate.properties, text: TextV2, format: Type.Optional(Format), visibility: Type.Optional(Visibility), status: Type.Optional(PostStatus), org_id: Type.Optional(OrgId), attachments: Type.Optional(Attachments), comments: Type.Optional(CommentSetting), slug: Type.Optional(Slug), language: Type.Optional(PostLanguage), tags: Type.Optional(Tags), publish_at: Type.Optional(PublishAt) },
  { additionalProperties: false, title: 'PostCreateV2' },
)

export const PostUpdateV2 = Type.Object(
  { ...PostUpdate.properties, text: Type.Optional(TextV2), format: Type.Optional(Format), visibility: Type.Optional(Visibility), status: Type.Optional(PostStatus), org_id: Type.Optional(OrgId), attachments: Type.Optional(Attachments), comments: Type.Optional(CommentSetting), slug: Type.Optional(Slug), language: Type.Optional(Type.Union([PostLanguage, Type.Null()])), tags: Type.Optional(Tags), publish_at: Type.Optional(Type.Union([PublishAt, Type.Null()], { description: 'Schedules the post, or moves its time; null takes a scheduled post back to a draft' })) },
  { additionalProperties: false, minProperties: 1, title: 'PostUpdateV2' },
)

export const PostPermissions = Type.Object(
  {
    read: Type.Boolean(),
    edit: Type.Boolean(),
    delete: Type.Boolean(),
    publish: Type.Boolean({ description: 'May change its status (publish a draft, schedule it, or take it back to draft)' }),
  },
  { title: 'PostPermissions' },
)


/** A 422 of a v2 post list: a broken parameter, or (sort_too_broad, filter_too_broad) a sort or a filter not served by an index, of too large a list. */
export const PostListRefusedResponse = Type.Object(
  {
    ...ValidationErrorResponse.properties,
    code: Type.Union([Type.Literal('validation_failed'), Type.Literal('sort_too_broad'), Type.Literal('filter_too_broad')], {
      description: '`validation_failed`; `sort_too_broad` for a sort not read from an index (several keys; a count on PostgreSQL) of a list of more than 10,000 posts; `filter_too_broad` for a filter no index narrows of such a list.',
    }),
  },
  { title: 'PostListRefusedResponse', description: 'Validation failed, or the sort or the filter is too broad' },
)

/** A v2 listing: page or cursor, limit, search, and narrowing by visibility and status. */
export const PostListQueryV2 = Type.Object({
  tag: Type.Optional(TagParameter),
  page: PageNumber,
  limit: PostLimit,
  cursor: Type.Optional(CursorParameter),
  search: Type.Optional(PostSearch),
  visibility: Type.Optional(Visibility),
  status: Type.Optional(PostStatus),
  expand: Type.Optional(Expand),
  sort: Type.Optional(Sort),
  filter: Type.Optional(Filter),
})

/**
 * Version 2's post shapes with the declared custom fields (CONTENT_SCHEMA) as their `fields`:
 * what the routes validate and serialize with, and so what the OpenAPI document shows.
 */
export function postShapesV2(content: Pick<ContentFields, 'shapes'>) {
  const fields = content.shapes('posts')
  const expand = postExpansions(userShapesV2(content.shapes('users')).read, orgShapesV2(content.shapes('orgs')).read)
  const read = Type.Object({ ...PostReadV2.properties, fields: fields.read, expand: Type.Optional(expand) }, { title: 'PostReadV2' })
  const create = Type.Object(
    { ...PostCreateV2.properties, fields: fields.requiredOnCreate ? fields.create : Type.Optional(fields.create) },
    { additionalProperties: false, title: 'PostCreateV2' },
  )
  const update = Type.Object({ ...PostUpdateV2.properties, fields: Type.Optional(fields.update) }, { additionalProperties: false, minProperties: 1, title: 'PostUpdateV2' })
  return { read, create, update, page: CursorPageEnvelopeSchema(read, 'PostPage') }
}
export type PostShapesV2 = ReturnType<typeof postShapesV2>
