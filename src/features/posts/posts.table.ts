// The posts table and the rows the posts feature reads from it.
import type { Generated, Selectable } from 'kysely'

import type { Flag, NullableTimestamp,Timestamp } from '../../db/column-types.js'

export interface PostsTable {
  id: Generated<number>
  author_id: number
  title: string
  text: string
  media_url: string | null
  is_deleted: Flag
  deleted_at: NullableTimestamp
  created_at: Timestamp
  updated_at: Timestamp
}

/** Columns of a post as every read returns it. */
export const POST_COLUMNS = ['id', 'title', 'text', 'media_url', 'author_id', 'created_at', 'updated_at'] as const

export type PostRow = Pick<Selectable<PostsTable>, (typeof POST_COLUMNS)[number]>
