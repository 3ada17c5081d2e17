// The files slice's tables (migration 2026-11-30-01-files).
import type { ColumnType, Generated, Selectable } from 'kysely'

import type { NullableTimestamp, Timestamp } from '../../db/column-types.js'

/** bigint: a string from PostgreSQL. */
type BigCount = ColumnType<number | string, number | undefined, number>
type EpochMs = ColumnType<number | string, number, number>
type NullableEpochMs = ColumnType<number | string | null, number | null | undefined, number | null>

export type FileStatus = 'pending' | 'ready'
export type UploadKind = 'form' | 'direct'

export interface FilesTable {
  id: Generated<number>
  owner_id: number
  post_id: number | null
  name: string
  content_type: string
  size: BigCount
  sha256: string | null
  storage_key: string
  status: FileStatus
  upload_kind: UploadKind
  expires_at: NullableTimestamp
  created_at: Timestamp
}

export type FileRow = Selectable<FilesTable>

export interface FileVariantsTable {
  file_id: number
  preset: string
  storage_key: string
  size: BigCount
  created_at: Timestamp
}

export interface StorageUsageTable {
  user_id: number
  bytes: BigCount
  files: ColumnType<number, number | undefined, number>
  reserved_bytes: BigCount
  reserved_files: ColumnType<number, number | undefined, number>
}

export interface BlobDeletionsTable {
  id: Generated<number>
  storage_key: string
  attempts: Generated<number>
  next_attempt_at: EpochMs
  claimed_by: string | null
  claimed_until: NullableEpochMs
  created_at: Timestamp
}

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    files: FilesTable
    file_variants: FileVariantsTable
    storage_usage: StorageUsageTable
    blob_deletions: BlobDeletionsTable
  }
}
