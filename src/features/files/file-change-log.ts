// What a change to a file records in its own unit of work, for webhooks and realtime streams. The
// files feature names its events; the change-events feature implements the call.
import type { Unit } from '../../db/unit-of-work.js'
import type { FileView } from './file.js'

export const FILE_EVENT_TYPES = ['file.created', 'file.deleted'] as const
export type FileEventType = (typeof FILE_EVENT_TYPES)[number]

export interface FileChangeLog {
  fileChanged(unit: Unit, type: FileEventType, file: FileView): Promise<void>
}
