// A file as services take and return it, and as an attachment of a post.
import { toIsoString } from '../../shared/timestamps.js'
import type { FileRow, FileStatus, UploadKind } from './files.table.js'

export interface StoredFile {
  id: number
  ownerId: number
  postId: number | null
  name: string
  contentType: string
  /** Declared while the upload is pending; the stored object's once ready. */
  size: number
  sha256: string | null
  storageKey: string
  status: FileStatus
  uploadKind: UploadKind
  expiresAt: string | null
  createdAt: string
}

export function toStoredFile(row: FileRow): StoredFile {
  return {
    id: row.id,
    ownerId: row.owner_id,
    postId: row.post_id,
    name: row.name,
    contentType: row.content_type,
    size: Number(row.size),
    sha256: row.sha256,
    storageKey: row.storage_key,
    status: row.status,
    uploadKind: row.upload_kind,
    expiresAt: row.expires_at === null ? null : toIsoString(row.expires_at),
    createdAt: toIsoString(row.created_at),
  }
}

/** Who uploads: their quota follows their tier. */
export interface FileOwner {
  id: number
  isSuperuser: boolean
  tierId: number | null
}

export interface Usage {
  bytes: number
  files: number
  limitBytes: number
  limitFiles: number
}

/** A file where it is served from, with the variants its type has (images only). */
export interface FileView extends StoredFile {
  url: string
  variants: Record<string, string>
}
