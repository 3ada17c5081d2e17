// The data export's wire shapes.
import { Type } from 'typebox'

import { RecordId } from '../../shared/record-id.js'

export const ExportIdParams = Type.Object({ export_id: RecordId })

export const DataExportRead = Type.Object(
  {
    id: Type.Integer(),
    status: Type.Union([Type.Literal('queued'), Type.Literal('building'), Type.Literal('ready'), Type.Literal('failed')]),
    items_written: Type.Integer({ description: 'Rows and files written so far (building), or in all (ready)' }),
    size: Type.Union([Type.Integer(), Type.Null()], { description: "The ZIP's size in bytes, once ready" }),
    created_at: Type.String({ format: 'date-time' }),
    finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When a ready export is deleted (7 days after it was made)' }),
  },
  { title: 'DataExportRead' },
)

export const DownloadLink = Type.Object(
  {
    url: Type.String({ description: 'Downloads the ZIP once; then ask for another' }),
    expires_at: Type.String({ format: 'date-time' }),
  },
  { title: 'DownloadLink' },
)

export const DownloadQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, description: 'The link\'s token' }) })
