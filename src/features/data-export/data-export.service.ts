// "Download my data": the owner asks (with a fresh session); a durable job row is written with a
// security event in one unit; the `data-exports` job claims it under a lease (renewed while it
// builds, so a process killed mid-build loses it and another takes it over), streams the ZIP
// (export-archive.ts) into the store, and marks it ready with a mailed single-use link in one unit.
// Ready exports are deleted after 7 days; one may be asked for every 24 hours.
import { randomUUID } from 'node:crypto'
import type { Readable } from 'node:stream'

import type { Logger } from 'pino'

import type { Unit, UnitOfWork } from '../../db/unit-of-work.js'
import { DomainError, invalidToken } from '../../shared/errors.js'
import { mailedLink } from '../../shared/mailed-link.js'
import type { RunResult } from '../../shared/scheduler.js'
import { untilDue } from '../../shared/scheduler.js'
import { nowIso, toIsoString } from '../../shared/timestamps.js'
import type { BlobStore } from '../files/index.js'
import type { MailService } from '../mail/index.js'
import { duration } from '../mail/index.js'
import type { OneTimeSecrets, SecretKind } from '../one-time-secrets/index.js'
import type { ClientInfo, SecurityEventService } from '../security-events/index.js'
import type { DataExport } from './data-export.js'
import { toDataExport } from './data-export.js'
import type { DataExportRow, DataExportsRepository } from './data-exports.repository.js'
import type { ExportSources } from './export-content.js'
import { exportContentOf } from './export-content.js'
import type { DataExportSettings } from './settings.js'

const HOUR_MS = 3_600_000
/** One export per user in this long. */
const EXPORT_INTERVAL_MS = 24 * HOUR_MS
/** A ready export is deleted this long after it was finished. */
const EXPORT_KEPT_MS = 7 * 24 * HOUR_MS
/** A mailed download link lives this long, and is good for one download. */
const DOWNLOAD_LINK_SECONDS = 48 * 3600
/** A failed build is tried again after this, doubled each time, up to MAX_ATTEMPTS builds. */
const RETRY_BASE_MS = 30_000
const MAX_ATTEMPTS = 5
const EXPIRED_BATCH = 50
const LISTED = 10

const exportNotFound = (): never => {
  throw new DomainError('not_found', 'No data export with this id', { code: 'export_not_found' })
}

/** Who asks: the signed-in owner. */
export interface ExportOwner {
  id: number
  email: string
  name: string
  locale: string | null
}

export interface ExportDownload {
  body: Readable
  size: number
  fileName: string
}

export interface DataExportCollaborators {
  /** What goes in a user's archive (wired in src/services.ts from the features that hold it). */
  sources: ExportSources
  /** The owner's address and name when the export is ready (undefined once the account is gone). */
  ownerOf(userId: number): Promise<ExportOwner | undefined>
  /** Queues stored objects for removal in the unit (the files feature's outbox). */
  queueRemoval(unit: Unit, keys: readonly string[]): Promise<void>
}

/** What DataExportService is built from. */
export interface DataExportServiceDependencies {
  exports: DataExportsRepository
  unitOfWork: UnitOfWork
  store: BlobStore
  collaborators: DataExportCollaborators
  mail: MailService
  events: SecurityEventService
  secrets: OneTimeSecrets
  settings: DataExportSettings & { publicUrl: string }
  logger: Logger
  queued: () => void
  now?: () => number
}

export class DataExportService {
  /** Names this process's claims. */
  private readonly worker = randomUUID()
  private readonly downloadLinks: SecretKind<{ exportId: number }>

  private readonly exports: DataExportsRepository
  private readonly unitOfWork: UnitOfWork
  private readonly store: BlobStore
  private readonly collaborators: DataExportCollaborators
  private readonly mail: MailService
  private readonly events: SecurityEventService
  private readonly settings: DataExportSettings & { publicUrl: string }
  private readonly logger: Logger
  private readonly queued: () => void
  private readonly now: () => number

  constructor(dependencies: DataExportServiceDependencies) {
    this.exports = dependencies.exports
    this.unitOfWork = dependencies.unitOfWork
    this.store = dependencies.store
    this.collaborators = dependencies.collaborators
    this.mail = dependencies.mail
    this.events = dependencies.events
    this.settings = dependencies.settings
    this.logger = dependencies.logger
    this.queued = dependencies.queued
    this.now = dependencies.now ?? Date.now
    const secrets = dependencies.secrets
    this.downloadLinks = secrets.kind('data_export_download', { seconds: DOWNLOAD_LINK_SECONDS })
  }

  /** Queues an export of the owner's data (the route checked the session is fresh); 429 export_limit within 24 hours of the last. */
  async request(userId: number, client: ClientInfo): Promise<DataExport> {
    const now = this.now()
    const row = await this.unitOfWork.run(async (unit) => {
      const exports = this.exports.in(unit)
      // The row first: one export may be queued or building per user (a partial unique index), so
      // a request at the same moment waits for this one and is refused; then the day's limit,
      // checked in the same transaction, so a request just after a quick build is refused too.
      const inserted = await exports.insertExport(userId, new Date(now).toISOString(), now)
      if (!inserted) throw limitReached(EXPORT_INTERVAL_MS)
      const recent = await exports.newestCountedSince(userId, new Date(now - EXPORT_INTERVAL_MS).toISOString(), inserted.id)
      if (recent) throw limitReached(Date.parse(toIsoString(recent.created_at)) + EXPORT_INTERVAL_MS - now)
      await this.events.record('data_export_requested', userId, client, { unit, details: { export_id: inserted.id } })
      return inserted
    })
    this.queued()
    return toDataExport(row)
  }

  async get(userId: number, id: number): Promise<DataExport> {
    const row = await this.exports.findExport(userId, id)
    return row ? toDataExport(row) : exportNotFound()
  }

  /** The owner's latest exports, newest first. */
  async list(userId: number): Promise<DataExport[]> {
    return (await this.exports.listExports(userId, LISTED)).map(toDataExport)
  }

  /** A new single-use download link for a ready export of the owner's (a frontend's download button). */
  async link(userId: number, id: number): Promise<{ url: string; expiresAt: string }> {
    const row = await this.exports.findExport(userId, id)
    if (!row || this.expired(row)) return exportNotFound()
    if (row.status !== 'ready') throw notReady()
    const { token } = await this.downloadLinks.issue({ userId, data: { exportId: id } })
    return { url: this.downloadUrl(token), expiresAt: new Date(this.now() + DOWNLOAD_LINK_SECONDS * 1000).toISOString() }
  }

  /** Spends a download link: the ZIP's bytes, streamed from the store. */
  async download(token: string, client: ClientInfo): Promise<ExportDownload> {
    const spent = await this.downloadLinks.spend(token)
    if (!spent?.userId) throw invalidToken()
    const row = await this.exports.findExport(spent.userId, spent.data.exportId)
    if (!row || row.status !== 'ready' || row.storage_key === null || this.expired(row)) return exportNotFound()
    if (!(await this.store.head(row.storage_key))) return exportNotFound()
    await this.events.record('data_export_downloaded', spent.userId, client, { details: { export_id: row.id } })
    // The stream is opened last: it goes to the reply with nothing awaited in between, so an error it meets has a listener.
    const stored = await this.store.get(row.storage_key)
    if (!stored) return exportNotFound()
    return { body: stored.body, size: stored.size, fileName: `data-export-${row.id}.zip` }
  }

  /** The job's run: builds the next due export, if any; how long until the next is due otherwise. */
  async buildNext(signal: AbortSignal): Promise<RunResult> {
    const now = this.now()
    const claimed = await this.exports.claimExport(this.worker, now, now + this.leaseMs, (row) => `exports/${row.user_id}/${row.id}-${row.attempts + 1}-${randomUUID()}.zip`)
    if (!claimed) return untilDue(await this.exports.nextExportDueAt())
    const { row, previousKey } = claimed
    // A build killed before it finished may have left bytes behind (a partial object).
    if (previousKey !== null) await this.store.remove(previousKey)
    if (row.attempts > MAX_ATTEMPTS) {
      await this.exports.failExport(row.id, this.worker, nowIso())
      this.logger.error({ exportId: row.id, userId: row.user_id }, 'a data export failed too often; it is marked failed')
      return true
    }
    try {
      await this.build(row.id, row.user_id, row.storage_key!, signal)
    } catch (error) {
      if (signal.aborted) {
        // Stopping: the next process (or this one's restart) starts it again at once, and a stop is no failed attempt.
        // What this attempt stored is left to that claim to remove: the store may be the reason the build was slow.
        await this.exports.releaseExport(row.id, this.worker, this.now(), { refund: true })
        return true
      }
      await this.store.remove(row.storage_key!).catch(() => undefined)
      this.logger.warn({ err: error, exportId: row.id }, 'building a data export failed; it is tried again later')
      await this.exports.releaseExport(row.id, this.worker, this.now() + RETRY_BASE_MS * 2 ** (row.attempts - 1))
    }
    return true
  }

  /** Deletes expired exports and their ZIPs; true while more remain. */
  async prune(): Promise<boolean> {
    const now = this.now()
    const expired = await this.exports.expiredExports(new Date(now).toISOString(), new Date(now - EXPORT_KEPT_MS).toISOString(), EXPIRED_BATCH)
    for (const row of expired)
      await this.unitOfWork.run(async (unit) => {
        if (row.storage_key !== null) await this.collaborators.queueRemoval(unit, [row.storage_key])
        await this.exports.in(unit).deleteExport(row.id)
      })
    return expired.length === EXPIRED_BATCH
  }

  /** A user is removed for good: their ZIPs go through the store's outbox (the rows go with the user). */
  async removeAllOf(unit: Unit, userId: number): Promise<void> {
    const keys = await this.exports.in(unit).storageKeysOf(userId)
    if (keys.length > 0) await this.collaborators.queueRemoval(unit, keys)
  }

  /** Past its time, and not yet deleted by the cleanup (it runs every few minutes). */
  private expired(row: DataExportRow): boolean {
    return row.expires_at !== null && Date.parse(toIsoString(row.expires_at)) <= this.now()
  }

  private get leaseMs(): number {
    return this.settings.leaseSeconds * 1000
  }

  private async build(id: number, userId: number, key: string, signal: AbortSignal): Promise<void> {
    let items = 0
    // The archive's module (and the ZIP writer, yazl) is loaded with the first export, not at start.
    const { archiveOf } = await import('./export-archive.js')
    const archive = archiveOf(exportContentOf(this.collaborators.sources, userId, new Date(this.now())), () => {
      items += 1
    })
    // The lease is renewed every third of it while the ZIP streams; a lost claim or a stop ends the build.
    const renewing = setInterval(() => {
      this.exports.renewClaim(id, this.worker, this.now() + this.leaseMs, items).then(
        (held) => {
          if (!held) archive.destroy(new Error('the claim on the export was lost'))
        },
        (error: unknown) => archive.destroy(error instanceof Error ? error : new Error(String(error))),
      )
    }, this.leaseMs / 3)
    // The store's read of the archive reports its errors; until that read starts (the S3 driver
    // loads with the first use), an error raised here (a stop, a lost claim) must not be uncaught.
    archive.on('error', () => undefined)
    const stop = () => archive.destroy(new Error('stopping'))
    signal.addEventListener('abort', stop, { once: true })
    try {
      await this.store.put(key, archive, 'application/zip', signal)
    } finally {
      clearInterval(renewing)
      signal.removeEventListener('abort', stop)
      // A put that failed before reading leaves the archive open, with its reads of the database ahead.
      archive.destroy()
    }
    const stored = await this.store.head(key)
    const owner = await this.collaborators.ownerOf(userId)
    const finishedAt = this.now()
    const finished = await this.unitOfWork.run(async (unit) => {
      const done = await this.exports.in(unit).finishExport(id, this.worker, {
        size: stored?.size ?? 0,
        itemsWritten: items,
        finishedAt: new Date(finishedAt).toISOString(),
        expiresAt: new Date(finishedAt + EXPORT_KEPT_MS).toISOString(),
      })
      if (!done || !owner) return done
      const { token } = await this.downloadLinks.issue({ userId, data: { exportId: id }, unit })
      // A page whose button downloads (a mail scanner opening the link spends nothing), not the download itself.
      const link = mailedLink(this.settings.downloadPageUrl, `${this.settings.publicUrl}/account/data-export`, token)
      const values = { name: owner.name, link, valid_for: duration(DOWNLOAD_LINK_SECONDS / 60), expires: new Date(finishedAt + EXPORT_KEPT_MS) }
      await this.mail.queue(unit, { template: 'data-export-ready', to: owner.email, locale: owner.locale, values })
      return true
    })
    // Another process took the export over meanwhile: its ZIP is the one kept.
    if (!finished) await this.store.remove(key)
  }

  private downloadUrl(token: string): string {
    return `${this.settings.publicUrl}/api/v2/exports/download?token=${encodeURIComponent(token)}`
  }
}

function limitReached(retryAfterMs: number): DomainError {
  return new DomainError('rate_limited', 'One data export may be asked for every 24 hours', { code: 'export_limit', retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) })
}

function notReady(): DomainError {
  return new DomainError('conflict', 'The data export is not ready', { code: 'export_not_ready' })
}
