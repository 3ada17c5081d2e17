// The store's background work, safe in several processes at once: abandoning uploads past their
// expiry (their reservation given back, their bytes queued for removal), removing queued objects
// (the outbox, claimed with a lease and retried with backoff), and a sweep that reconciles the
// store with the rows both ways: an object no row names is removed, a counted file whose object
// is gone is removed and uncounted.
import { randomUUID } from 'node:crypto'

import type { UnitOfWork } from '../../db/unit-of-work.js'
import type { Logger } from '../../logger.js'
import { untilDue } from '../../shared/scheduler.js'
import type { FileRemoval } from './file-removal.js'
import { removeFiles } from './file-removal.js'
import type { FilesRepository } from './files.repository.js'
import type { BlobStore } from './storage/index.js'

const EXPIRED_BATCH = 50
const DELETION_BATCH = 20
/** Longer than removing a batch of objects can take. */
const CLAIM_LEASE_MS = 60_000
const RETRY_BASE_MS = 10_000
const MAX_RETRY_MS = 6 * 60 * 60 * 1000
const SWEEP_BATCH = 200

export const STORE_RELAY_INTERVAL_MS = 2_000
export const UPLOAD_EXPIRY_CHECK_MS = 60_000
export const STORE_SWEEP_INTERVAL_MS = 6 * 60 * 60 * 1000

export interface SweepReport {
  /** Objects no row named, removed. */
  orphanObjects: number
  /** Completed files whose object was gone, removed and uncounted. */
  missingObjects: number
}

/** What StoreUpkeep is built from. */
export interface StoreUpkeepDependencies {
  files: FilesRepository
  unitOfWork: UnitOfWork
  store: BlobStore
  removal: FileRemoval
  logger: Logger
  options: { uploadExpirySeconds: number }
}

export class StoreUpkeep {
  private readonly worker = randomUUID()

  private readonly files: FilesRepository
  private readonly unitOfWork: UnitOfWork
  private readonly store: BlobStore
  private readonly removal: FileRemoval
  private readonly logger: Logger
  private readonly options: { uploadExpirySeconds: number }

  constructor(dependencies: StoreUpkeepDependencies) {
    this.files = dependencies.files
    this.unitOfWork = dependencies.unitOfWork
    this.store = dependencies.store
    this.removal = dependencies.removal
    this.logger = dependencies.logger
    this.options = dependencies.options
  }

  /** Abandons uploads past their expiry, a batch per unit; says whether a full batch was found. */
  async abandonExpired(): Promise<boolean> {
    return this.unitOfWork.run(async (unit) => {
      const expired = await this.files.in(unit).expiredUploads(new Date().toISOString(), EXPIRED_BATCH)
      await removeFiles(this.removal, unit, expired.map((row) => row.id))
      return expired.length === EXPIRED_BATCH
    })
  }

  /** Removes the queued objects this process claims; when none: false, or how long until one is due. */
  async removeQueued(signal?: AbortSignal): Promise<boolean | number> {
    let worked = false
    for (;;) {
      const now = Date.now()
      const claimed = await this.files.claimBlobDeletions(this.worker, now, now + CLAIM_LEASE_MS, DELETION_BATCH)
      for (const deletion of claimed) {
        try {
          await this.store.remove(deletion.storage_key)
          await this.files.finishBlobDeletion(deletion.id, this.worker)
        } catch (error) {
          const wait = Math.min(MAX_RETRY_MS, RETRY_BASE_MS * 4 ** deletion.attempts)
          this.logger.warn({ err: error, key: deletion.storage_key, attempts: deletion.attempts + 1 }, 'an object could not be removed from the store; trying again later')
          await this.files.retryBlobDeletion(deletion.id, this.worker, Date.now() + wait)
        }
      }
      worked ||= claimed.length > 0
      if (claimed.length < DELETION_BATCH || signal?.aborted) break
    }
    return worked || untilDue(await this.files.nextBlobDeletionDueAt())
  }

  /** Reconciles the store and the rows both ways. Objects younger than an upload's expiry are left alone: their row may be on its way. */
  async sweep(signal?: AbortSignal, now = Date.now()): Promise<SweepReport> {
    const report: SweepReport = { orphanObjects: 0, missingObjects: 0 }
    const settled = now - this.options.uploadExpirySeconds * 1000 - 60_000
    for await (const object of this.store.list('files/')) {
      if (signal?.aborted) return report
      if (object.lastModified.getTime() > settled || (await this.files.keyIsKnown(object.key))) continue
      await this.store.remove(object.key)
      report.orphanObjects++
    }
    for (let after = 0; ; ) {
      const rows = await this.files.readyFilesAfter(after, SWEEP_BATCH)
      for (const row of rows) {
        if (signal?.aborted) return report
        if (await this.store.head(row.storage_key)) continue
        await this.unitOfWork.run((unit) => removeFiles(this.removal, unit, [row.id]))
        report.missingObjects++
      }
      if (rows.length < SWEEP_BATCH) break
      after = rows[rows.length - 1]!.id
    }
    if (report.orphanObjects + report.missingObjects > 0) this.logger.warn(report, 'the storage sweep reconciled the store with the files')
    return report
  }
}
