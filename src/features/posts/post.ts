import { toIsoString } from '../../shared/timestamps.js'
import type { PostRow } from './posts.table.js'

/** A post as services take and return it; each API version maps it to its own shape. */
export interface Post {
  id: number
  title: string
  text: string
  mediaUrl: string | null
  authorId: number
  createdAt: string
  updatedAt: string
}

export interface PostInput {
  title: string
  text: string
  mediaUrl?: string | null
}

export interface PostChanges {
  title?: string
  text?: string
  mediaUrl?: string | null
}

export interface PostFilter {
  /** Case-insensitive substring of the title or text. */
  search?: string
  authorId?: number
}

export function toPost(row: PostRow): Post {
  return {
    id: row.id,
    title: row.title,
    text: row.text,
    mediaUrl: row.media_url,
    authorId: row.author_id,
    createdAt: toIsoString(row.created_at),
    updatedAt: toIsoString(row.updated_at),
  }
}
