// The reactions slice's tables: a user's reactions on posts and comments, and their counts by kind
// (kept by triggers, migration 2026-12-09-02-reactions).
import type { ColumnType } from 'kysely'

import type { Timestamp } from '../../db/column-types.js'

export interface PostReactionsTable {
  post_id: number
  user_id: number
  kind: string
  created_at: Timestamp
}

export interface CommentReactionsTable {
  comment_id: number
  user_id: number
  kind: string
  created_at: Timestamp
}

export interface PostReactionCountsTable {
  post_id: number
  kind: string
  count: ColumnType<number, never, never>
}

export interface CommentReactionCountsTable {
  comment_id: number
  kind: string
  count: ColumnType<number, never, never>
}

export interface PostReactionChangesTable {
  post_id: number
  changed_at: Timestamp
}

// This slice's tables in the database's type (src/db/schema.ts). The targets' kept totals
// (posts.reaction_count, comments.reaction_count) are theirs.
declare module '../../db/schema.js' {
  interface Database {
    post_reactions: PostReactionsTable
    comment_reactions: CommentReactionsTable
    post_reaction_counts: PostReactionCountsTable
    comment_reaction_counts: CommentReactionCountsTable
    post_reaction_changes: PostReactionChangesTable
  }
}
