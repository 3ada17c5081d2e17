// The posts table and the rows the posts feature reads from it.
import type { ColumnType, Generated, Selectable } from 'kysely'

import type { Flag, NullableTimestamp, Timestamp } from '../../db/column-types.js'

export interface PostsTable {
  id: Generated<number>
  author_id: number
  title: string
  text: string
  media_url: string | null
  /** public, unlisted, org or private (post-policy.ts). */
  visibility: ColumnType<string, string | undefined, string>
  /** draft, scheduled or published. */
  status: ColumnType<string, string | undefined, string>
  /** The organization the post belongs to; null once that organization is deleted. */
  org_id: ColumnType<number | null, number | null | undefined, number | null>
  /** When it was first published; null while it has never been. */
  published_at: NullableTimestamp
  /** A scheduled post's time to go out; null for any other (migration 2026-12-15-02-post-schedule). */
  publish_at: NullableTimestamp
  /** Its ready files, kept by triggers on files (migration 2026-12-08-01-kept-post-counts). */
  attachment_count: ColumnType<number, never, never>
  /** Who may comment on it: open, members or closed (post-policy.ts). */
  comments: ColumnType<string, string | undefined, string>
  /** Its visible comments and replies, kept by triggers on comments (migration 2026-12-09-01-comments). */
  comment_count: ColumnType<number, never, never>
  /** Its top-level comments everyone who reads it sees in its threads, kept by triggers on comments for the comments slice's totals (migration 2026-12-10-01-comment-thread-counts). */
  thread_count: ColumnType<number, never, never>
  /** Its reactions of every kind, kept by triggers on post_reactions (migration 2026-12-09-02-reactions). */
  reaction_count: ColumnType<number, never, never>
  /** Its address under its owner, unique in `slug_scope` (slugs.ts; migration 2026-12-10-02-post-slugs). */
  slug: ColumnType<string, string, string>
  /** The scope its slug was given in: `o:<org id>` or `u:<author id>`. */
  slug_scope: ColumnType<string, string, string>
  /** plain or markdown (markdown.ts). */
  format: ColumnType<string, string | undefined, string>
  /** A Markdown post's sanitized HTML, rendered when its text was written; null for a plain post (migration 2026-12-11-01-post-format). */
  html: string | null
  /** Its custom fields (CONTENT_SCHEMA) as one JSON object: text on SQLite, jsonb on PostgreSQL (migration 2026-12-12-01-post-fields). */
  fields: ColumnType<unknown, string | undefined, string>
  /** The language it is written in (a BCP 47 tag): what search stems it as; its author's locale when they gave none, else null (migration 2026-12-14-01-post-search). */
  language: ColumnType<string | null, string | null | undefined, string | null>
  /** Its tags as a JSON array, normalized (tags.ts); post_tags holds one row for each (migration 2026-12-14-02-post-tags). */
  tags: ColumnType<string, string | undefined, string>
  is_deleted: Flag
  deleted_at: NullableTimestamp
  /** A post deleted through version 2: until when it waits in its author's trash; null otherwise (migration 2026-12-15-01-post-trash). */
  trashed_until: NullableTimestamp
  /** Who moved it to the trash (null once their account is gone). */
  trashed_by: ColumnType<number | null, number | null | undefined, number | null>
  created_at: Timestamp
  updated_at: Timestamp
}

/** Columns of a post as every read returns it. */
export const POST_COLUMNS = ['id', 'title', 'text', 'media_url', 'author_id', 'visibility', 'status', 'org_id', 'published_at', 'publish_at', 'attachment_count', 'comments', 'comment_count', 'reaction_count', 'slug', 'format', 'html', 'fields', 'language', 'tags', 'created_at', 'updated_at'] as const

export type PostRow = Pick<Selectable<PostsTable>, (typeof POST_COLUMNS)[number]>

/** The live posts of each organization by visibility and status, kept by triggers (migration 2026-12-08-01-kept-post-counts). */
export interface OrgPostCountsTable {
  org_id: number
  visibility: string
  status: string
  count: ColumnType<number | string, number, number>
}

/** A post's earlier slug in the scope it was in: an old address still finds the post. */
export interface PostSlugRedirectsTable {
  slug_scope: string
  slug: string
  post_id: number
  created_at: Timestamp
}

// This slice's tables in the database's type (src/db/schema.ts).
/**
 * A post's title and text as search indexes them (search-text.ts searchableText), written in the
 * post's own transaction. On PostgreSQL with its language's configuration and tsvector; on SQLite
 * the FTS5 table `post_search`, whose rowid is the post's id (migration 2026-12-14-01-post-search).
 */
export interface PostSearchTable {
  post_id: number
  configuration: string
  title: string
  body: string
  document: unknown
}

/** A post as it was before a change of its title, text, visibility, tags or attachments (migration 2026-12-14-03-post-revisions). */
export interface PostRevisionsTable {
  id: Generated<number>
  post_id: number
  title: string
  text: string
  format: string
  visibility: string
  /** JSON array. */
  tags: string
  language: string | null
  /** The ids of its files as a JSON array. */
  attachments: string
  replaced_by: number | null
  created_at: Timestamp
}

/** A post's tag: what `?tag=` and GET /tags find posts by. */
export interface PostTagsTable {
  post_id: number
  tag: string
}

declare module '../../db/schema.js' {
  interface Database {
    post_search: PostSearchTable
    post_tags: PostTagsTable
    post_revisions: PostRevisionsTable
    posts: PostsTable
    org_post_counts: OrgPostCountsTable
    post_slug_redirects: PostSlugRedirectsTable
  }
}
