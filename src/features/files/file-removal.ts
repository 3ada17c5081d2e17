// Removing files inside a change's unit of work: the rows go, their usage is given back, and
// their objects (and their variants') are queued in the store's outbox in the same transaction,
// so a crash can leave neither a counted file without its object nor an object nobody removes.
import type { Unit } from '../../db/unit-of-work.js'
import type { FileView } from './file.js'
import { toStoredFile } from './file.js'
import type { FileChangeLog } from './file-change-log.js'
import type { FilesRepository } from './files.repository.js'

export interface FileRemoval {
  files: FilesRepository
  changes: FileChangeLog
  viewOf(file: ReturnType<typeof toStoredFile>): FileView
  /** Wakes this process's store relay after the commit. */
  queued(unit: Unit): void
  /** When the key of a pending upload may last be written through its presigned URL (epoch ms, with the store's clock skew); undefined when no such URL works. */
  writableUntil(file: ReturnType<typeof toStoredFile>): number | undefined
}

export async function removeFiles(removal: FileRemoval, unit: Unit, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return
  const files = removal.files.in(unit)
  const variantKeys = await files.variantKeysOf(ids)
  const removed = (await files.deleteFiles(ids)).map(toStoredFile)
  for (const file of removed) {
    if (file.status === 'ready') {
      await files.uncount(file.ownerId, file.size, 1)
      await removal.changes.fileChanged(unit, 'file.deleted', removal.viewOf(file))
    } else {
      await files.releaseReserved(file.ownerId, file.size)
    }
  }
  const now = Date.now()
  await files.queueBlobDeletions([...removed.map((file) => file.storageKey), ...variantKeys], now)
  // An upload ended while its PUT URL still works: its key is removed once more when the URL expires.
  for (const file of removed) {
    const until = file.status === 'pending' ? removal.writableUntil(file) : undefined
    if (until !== undefined && until > now) await files.queueBlobDeletions([file.storageKey], until)
  }
  removal.queued(unit)
}
