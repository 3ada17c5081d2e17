// The comments slice's table, and the rows it reads from it.
import type { ColumnType, Generated, Selectable } from 'kysely'

import type { Flag, NullableTimestamp, Timestamp } from '../../db/column-types.js'

export interface CommentsTable {
  id: Generated<number>
  post_id: number
  /** Null once its author's account was removed for good (a tombstone). */
  author_id: number | null
  /** The top-level comment a reply answers; null for a top-level comment. */
  parent_id: number | null
  /** Erased ('') once deleted or removed. */
  text: string
  /** visible, hidden, deleted or removed (comment.ts). */
  status: ColumnType<string, string | undefined, string>
  hidden_reason: string | null
  /** Who hid or removed it. */
  moderated_by: number | null
  /** Its visible replies, kept by triggers (migration 2026-12-09-01-comments). */
  reply_count: ColumnType<number, never, never>
  /** Its reactions of every kind, kept by triggers on comment_reactions (the reactions slice's migration 2026-12-09-02-reactions). */
  reaction_count: ColumnType<number, never, never>
  /** Hidden with its author's account (and back with it when the deletion is taken back). */
  is_deleted: Flag
  deleted_at: NullableTimestamp
  edited_at: NullableTimestamp
  created_at: Timestamp
  updated_at: Timestamp
}

/** Columns of a comment as every read returns it. */
export const COMMENT_COLUMNS = ['id', 'post_id', 'author_id', 'parent_id', 'text', 'status', 'hidden_reason', 'reply_count', 'reaction_count', 'is_deleted', 'edited_at', 'created_at', 'updated_at'] as const

export type CommentRow = Pick<Selectable<CommentsTable>, (typeof COMMENT_COLUMNS)[number]>

/**
 * A comment's words as search indexes them (search-text.ts searchableText), written in the
 * comment's own transaction. On PostgreSQL with its post's language's configuration and tsvector;
 * on SQLite the FTS5 table `comment_search`, whose rowid is the comment's id (migration
 * 2026-12-16-01-comment-search).
 */
export interface CommentSearchTable {
  comment_id: number
  configuration: string
  body: string
  document: unknown
}

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    comments: CommentsTable
    comment_search: CommentSearchTable
  }
}
