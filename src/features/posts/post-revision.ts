// A revision as services take and return it, and when a change makes one (docs/api.md "Revisions").
import { toIsoString } from '../../shared/timestamps.js'
import type { PostFormat } from './markdown.js'
import type { Post, PostChanges } from './post.js'
import type { Visibility } from './post-policy.js'
import type { NewRevisionRow, RevisionRow } from './post-revisions.repository.js'
import { tagsOf } from './tags.js'

export interface PostRevision {
  id: number
  postId: number
  title: string
  text: string
  format: PostFormat
  visibility: Visibility
  tags: string[]
  language: string | null
  attachments: number[]
  /** Who made the change that replaced this version; null once their account is gone. */
  replacedBy: number | null
  /** When it was replaced. */
  createdAt: string
}

export function toRevision(row: RevisionRow): PostRevision {
  return {
    id: Number(row.id),
    postId: Number(row.post_id),
    title: row.title,
    text: row.text,
    format: row.format as PostFormat,
    visibility: row.visibility as Visibility,
    tags: tagsOf(row.tags),
    language: row.language,
    attachments: (JSON.parse(row.attachments) as unknown[]).map(Number),
    replacedBy: row.replaced_by === null ? null : Number(row.replaced_by),
    createdAt: toIsoString(row.created_at),
  }
}

const sameList = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((value, i) => value === b[i])

/** Whether the change replaces what a revision keeps: its title, text, format, visibility, tags or attachments. */
export function revises(post: Post, changes: PostChanges, attachments: readonly number[]): boolean {
  return (
    (changes.title !== undefined && changes.title !== post.title) ||
    (changes.text !== undefined && changes.text !== post.text) ||
    (changes.format !== undefined && changes.format !== post.format) ||
    (changes.visibility !== undefined && changes.visibility !== post.visibility) ||
    (changes.tags !== undefined && !sameList(changes.tags, post.tags)) ||
    (changes.attachments !== undefined && !sameList(changes.attachments, attachments))
  )
}

/** The post as it is, as the revision a change keeps of it. */
export function revisionOf(post: Post, attachments: readonly number[], replacedBy: number): NewRevisionRow {
  return {
    post_id: post.id,
    title: post.title,
    text: post.text,
    format: post.format,
    visibility: post.visibility,
    tags: JSON.stringify(post.tags),
    language: post.language,
    attachments: JSON.stringify(attachments),
    replaced_by: replacedBy,
  }
}

/** What restoring a revision changes: the post becomes that version again (as an edit, which keeps the version it replaces). */
export function changesRestoring(revision: PostRevision): PostChanges {
  return { title: revision.title, text: revision.text, format: revision.format, visibility: revision.visibility, tags: revision.tags, language: revision.language, attachments: revision.attachments }
}

/** A revision in the API's shape (GET /posts/{post_id}/revisions, a data export). */
export const toRevisionRead = (revision: PostRevision) => ({
  id: revision.id,
  post_id: revision.postId,
  title: revision.title,
  text: revision.text,
  format: revision.format,
  visibility: revision.visibility,
  tags: revision.tags,
  language: revision.language,
  attachments: revision.attachments,
  replaced_by: revision.replacedBy,
  created_at: revision.createdAt,
})
