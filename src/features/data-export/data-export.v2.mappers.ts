import type { DataExport } from './data-export.js'

export const toDataExportRead = (data: DataExport) => ({
  id: data.id,
  status: data.status,
  items_written: data.itemsWritten,
  size: data.size,
  created_at: data.createdAt,
  finished_at: data.finishedAt,
  expires_at: data.expiresAt,
})
