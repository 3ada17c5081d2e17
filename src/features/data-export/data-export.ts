// A data export as services take and return it.
import { toIsoString } from '../../shared/timestamps.js'
import type { DataExportRow } from './data-exports.repository.js'

export type DataExportStatus = 'queued' | 'building' | 'ready' | 'failed'

export interface DataExport {
  id: number
  status: DataExportStatus
  /** Rows and files written so far by the build under way, or in all once ready. */
  itemsWritten: number
  /** The ZIP's size once ready. */
  size: number | null
  createdAt: string
  finishedAt: string | null
  /** When a ready export is deleted. */
  expiresAt: string | null
}

export function toDataExport(row: DataExportRow): DataExport {
  return {
    id: row.id,
    status: row.status as DataExportStatus,
    itemsWritten: Number(row.items_written),
    size: row.size === null ? null : Number(row.size),
    createdAt: toIsoString(row.created_at),
    finishedAt: row.finished_at === null ? null : toIsoString(row.finished_at),
    expiresAt: row.expires_at === null ? null : toIsoString(row.expires_at),
  }
}
