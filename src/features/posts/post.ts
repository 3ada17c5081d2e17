import { toIsoString } from '../../shared/timestamps.js'
import type { FieldValues } from '../content-fields/index.js'
import type { FilterNode } from '../content-fields/index.js'
import { NO_FIELDS, storedFieldsOf } from '../content-fields/index.js'
import type { FileView } from '../files/index.js'
import type { ReactionSummary } from '../reactions/index.js'
import type { PostFormat } from './markdown.js'
import type { CommentSetting, PostFacts, PostStatus, Visibility } from './post-policy.js'
import type { PostRow } from './posts.table.js'
import { tagsOf } from './tags.js'

/** A post as services take and return it; each API version maps it to its own shape. */
export interface Post extends PostFacts {
  id: number
  title: string
  /** Its address under its owner (`/posts/by-slug/{owner}/{slug}`), unique among the owner's posts. */
  slug: string
  text: string
  /** How its text is written: plain, or Markdown with `html` rendered from it. */
  format: PostFormat
  /** A Markdown post's sanitized HTML (markdown.ts); null for a plain post. */
  html: string | null
  mediaUrl: string | null
  /** When it was first published; null while it never has been. */
  publishedAt: string | null
  /** A scheduled post's time to go out; null for any other. */
  publishAt: string | null
  createdAt: string
  updatedAt: string
  /** How many files are attached to it (kept by the database): a page whose posts have none reads no files. */
  attachmentCount: number
  /** Who may comment on it (post-policy.ts mayComment). */
  comments: CommentSetting
  /** Its visible comments and replies (kept by the database). */
  commentCount: number
  /** Its reactions of every kind (kept by the database): a page whose posts have none reads no reactions. */
  reactionCount: number
  /** Its reactions by kind and the reader's own, where they were read (version 2 reads them). */
  reactions?: ReactionSummary
  /** Its files, oldest first, where they were read (version 2 reads them; version 1 has none). */
  attachments?: readonly FileView[]
  /** Its custom fields as stored, every level: never shown as they are (`fields` is). */
  storedFields: FieldValues
  /** Its custom fields as the one it is given to may read them (PostService decides); none until then. */
  fields: FieldValues
  /** The language it is written in (a canonical BCP 47 tag): its author's locale when they named none; null when neither is known. */
  language: string | null
  /** Its tags, normalized (tags.ts). */
  tags: string[]
}

export interface PostInput {
  title: string
  text: string
  /** plain when left out. */
  format?: PostFormat
  mediaUrl?: string | null
  visibility?: Visibility
  status?: PostStatus
  orgId?: number | null
  comments?: CommentSetting
  /** Its address; made from the title when left out. */
  slug?: string
  /** Ids of the author's files to attach. */
  attachments?: readonly number[]
  /** Its custom fields (declared in CONTENT_SCHEMA, checked by the route's schema). */
  fields?: FieldValues
  /** The language it is written in; its author's locale when left out. */
  language?: string | null
  /** Its tags as the writer gave them (normalized by the service). */
  tags?: readonly string[]
  /** When it goes out: given, the post is scheduled. */
  publishAt?: string | null
}

export interface PostChanges {
  title?: string
  text?: string
  format?: PostFormat
  mediaUrl?: string | null
  visibility?: Visibility
  status?: PostStatus
  /** null takes the post out of its organization. */
  orgId?: number | null
  comments?: CommentSetting
  /** A new address: the old one redirects to it. */
  slug?: string
  /** The post's files from now on: the others are detached. */
  attachments?: readonly number[]
  /** The custom fields it changes: null takes one away, the others stay. */
  fields?: FieldValues
  /** The language it is written in; null when unknown. */
  language?: string | null
  /** Its tags from now on. */
  tags?: readonly string[]
  /** When it goes out (it is scheduled); null takes a scheduled post back to a draft. */
  publishAt?: string | null
}

export interface PostFilter {
  /** Case-insensitive substring of the title or text. */
  search?: string
  /** `filter` as the caller wrote it (filter-language.ts); the service reads it into `expression`. */
  filterText?: string
  /** The checked filter, which the repository compiles inside the policy's condition. */
  expression?: FilterNode
  authorId?: number
  orgId?: number
  /** Only posts with this tag (normalized). */
  tag?: string
  visibility?: Visibility
  status?: PostStatus
}

export function toPost(row: PostRow): Post {
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    text: row.text,
    format: row.format as PostFormat,
    html: row.html,
    mediaUrl: row.media_url,
    authorId: row.author_id,
    visibility: row.visibility as Visibility,
    status: row.status as PostStatus,
    orgId: row.org_id === null ? null : Number(row.org_id),
    publishedAt: row.published_at === null ? null : toIsoString(row.published_at),
    publishAt: row.publish_at === null ? null : toIsoString(row.publish_at),
    attachmentCount: Number(row.attachment_count),
    comments: row.comments as CommentSetting,
    commentCount: Number(row.comment_count),
    reactionCount: Number(row.reaction_count),
    createdAt: toIsoString(row.created_at),
    updatedAt: toIsoString(row.updated_at),
    // Not read yet. Present from the start so that version 2's `{ ...post, attachments }` copies a
    // shape instead of growing one: on Node 20 a spread followed by a property the source lacks
    // took 90 ns a post against 4 (docs/performance.md).
    attachments: undefined,
    reactions: undefined,
    storedFields: storedFieldsOf(row.fields),
    fields: NO_FIELDS,
    language: row.language,
    tags: tagsOf(row.tags),
  }
}
