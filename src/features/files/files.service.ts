// Files: uploads through the service (multipart) or straight to the store (presigned, or the
// local driver's signed URL), each reserving its size against the owner's quota first; reading
// them under the rule of the post they are attached to (the owner's alone when unattached);
// variants by preset; deletion through the store's outbox (file-removal.ts).
import { randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'

import type { Unit, UnitOfWork } from '../../db/unit-of-work.js'
import { afterCommit } from '../../db/unit-of-work.js'
import { DomainError } from '../../shared/errors.js'
import type { Paged, PageRequest } from '../../shared/paging.js'
import { everyItem, fetchPaged } from '../../shared/paging.js'
import type { ClientInfo } from '../security-events/index.js'
import type { FileOwner, FileView, StoredFile, Usage } from './file.js'
import { toStoredFile } from './file.js'
import type { FileChangeLog } from './file-change-log.js'
import type { Claims } from './file-content.js'
import { typeNotAllowed, VARIANT_TYPE, variantOf } from './file-content.js'
import type { StoredFacts } from './file-intake.js'
import { storeFromStream, verifyStored } from './file-intake.js'
import type { FileRemoval } from './file-removal.js'
import { removeFiles } from './file-removal.js'
import type { FilesRepository, Quota } from './files.repository.js'
import { isImageType } from './images/image-intake.js'
import type { FileSettings } from './settings.js'
import type { BlobStore, ByteRange, ObjectRead } from './storage/index.js'
import type { UploadUrls } from './upload-url.js'

export const FILE_NOT_FOUND = 'File not found'
export const UPLOAD_NOT_FOUND = 'Upload not found'
export const UPLOAD_INCOMPLETE = 'The store does not hold the bytes the upload declared'
export const UPLOAD_URL_INVALID = 'Invalid or expired upload URL'

export const fileNotFound = (): never => {
  throw new DomainError('not_found', FILE_NOT_FOUND, { code: 'file_not_found' })
}
const uploadNotFound = (): never => {
  throw new DomainError('not_found', UPLOAD_NOT_FOUND, { code: 'upload_not_found' })
}
/** Names the quota it met: the user's tier's, or STORAGE_QUOTA_BYTES and STORAGE_QUOTA_FILES. */
const quotaExceeded = (quota: Quota) =>
  new DomainError('too_large', `Storage quota exceeded: at most ${quota.bytes} bytes in ${quota.files} files (the tier's storage quota, or STORAGE_QUOTA_BYTES and STORAGE_QUOTA_FILES)`, { code: 'quota_exceeded' })
const uploadIncomplete = () => new DomainError('conflict', UPLOAD_INCOMPLETE, { code: 'upload_incomplete' })
/** The store's clock may run this far behind ours when it checks a URL's expiry. */
const URL_CLOCK_SKEW_MS = 60_000
/** Generated, never a client's words. */
const newStorageKey = () => `files/${randomUUID()}`

/** Who reads: nobody (null), or a signed-in user. */
export interface FileReader {
  id: number
  isSuperuser: boolean
}

/** Whether the reader may read the post (the posts' policy decides; a superuser's read of a closed post is audited there). */
export type PostReadCheck = (reader: FileReader | null, postId: number, client: ClientInfo) => Promise<boolean>

/** A tier's storage quota; null fields fall back to the defaults. */
export type TierQuota = (tierId: number | null) => Promise<{ bytes: number | null; files: number | null }>

export interface UploadTarget {
  uploadId: number
  url: string
  method: 'PUT'
  headers: Record<string, string>
  expiresAt: string
}

/** Where a file's bytes are read from: a presigned URL of the store, or the store through the service. */
export type Delivery = { file: StoredFile; redirect: string } | { file: StoredFile; key: string; contentType: string; size: number; etag: string }

export interface FileServiceOptions {
  settings: FileSettings
  /** Where the service's own upload URL lives (the local driver). */
  publicUrl: string
}

/** What FileService is built from. */
export interface FileServiceDependencies {
  files: FilesRepository
  unitOfWork: UnitOfWork
  store: BlobStore
  changes: FileChangeLog
  mayReadPost: PostReadCheck
  tierQuota: TierQuota
  urls: UploadUrls
  options: FileServiceOptions
  onQueued: () => void
}

export class FileService {
  private readonly rendering = new Map<string, Promise<void>>()
  readonly removal: FileRemoval

  private readonly files: FilesRepository
  private readonly unitOfWork: UnitOfWork
  private readonly store: BlobStore
  private readonly changes: FileChangeLog
  private readonly mayReadPost: PostReadCheck
  private readonly tierQuota: TierQuota
  private readonly urls: UploadUrls
  private readonly options: FileServiceOptions

  constructor(dependencies: FileServiceDependencies) {
    this.files = dependencies.files
    this.unitOfWork = dependencies.unitOfWork
    this.store = dependencies.store
    this.changes = dependencies.changes
    this.mayReadPost = dependencies.mayReadPost
    this.tierQuota = dependencies.tierQuota
    this.urls = dependencies.urls
    this.options = dependencies.options
    const onQueued = dependencies.onQueued
    this.removal = { files: this.files, changes: this.changes, viewOf: (file) => this.viewOf(file), queued: (unit) => afterCommit(unit, onQueued), writableUntil: (file) => this.writableUntil(file) }
  }

  /** Bytes sent through the service: reserved first (at most `reserveBytes`), then stored, then counted at their real size. */
  async upload(owner: FileOwner, claims: Claims, body: AsyncIterable<Buffer>, reserveBytes: number): Promise<FileView> {
    const pending = await this.begin(owner, claims.name, Math.min(reserveBytes, this.settings.maxBytes), 'form', claims.declaredType ?? 'application/octet-stream')
    try {
      const facts = await storeFromStream(this.store, pending.storageKey, body, claims, this.intakeOptions())
      return await this.finish(pending, { ...facts, storageKey: pending.storageKey }, await this.quotaOf(owner.tierId))
    } catch (error) {
      await this.abandon(pending.id)
      throw error
    }
  }

  /** An upload straight to the store: its size reserved, and where to PUT the bytes. */
  async startUpload(owner: FileOwner, input: { name: string; size: number; contentType: string }): Promise<UploadTarget> {
    // A type the client does not know (octet-stream) is sniffed at completion like any other.
    const declared = input.contentType.split(';')[0]!.trim().toLowerCase()
    if (declared !== 'application/octet-stream' && !this.settings.types.includes(declared)) throw typeNotAllowed(declared, this.settings.types)
    const limit = this.store.presigner ? this.settings.uploadMaxBytes : this.settings.maxBytes
    if (input.size > limit) throw new DomainError('too_large', `Files sent this way may be at most ${limit} bytes (${this.store.presigner ? 'FILE_UPLOAD_MAX_BYTES' : 'FILE_MAX_BYTES'})`)
    const pending = await this.begin(owner, input.name, input.size, 'direct', input.contentType)
    const expiresAt = Date.parse(pending.expiresAt!)
    if (this.store.presigner) {
      // Minutes, not the upload's whole life: a URL that outlives its upload could put bytes back.
      const seconds = Math.max(1, Math.min(this.settings.uploadUrlSeconds, Math.floor((expiresAt - Date.now()) / 1000)))
      const put = await this.store.presigner.put(pending.storageKey, { contentType: input.contentType, size: input.size, expiresSeconds: seconds })
      return { uploadId: pending.id, url: put.url, method: 'PUT', headers: put.headers, expiresAt: pending.expiresAt! }
    }
    const url = `${this.options.publicUrl}/api/v2/uploads/${pending.id}/content?${this.urls.query(pending.id, expiresAt)}`
    return { uploadId: pending.id, url, method: 'PUT', headers: { 'content-type': input.contentType }, expiresAt: pending.expiresAt! }
  }

  /** The local driver's upload URL: stores the bytes (at most the declared size) for a later complete. */
  async receive(uploadId: number, expiresAt: number, signature: string, body: AsyncIterable<Buffer>): Promise<void> {
    if (!this.urls.verify(uploadId, expiresAt, signature)) throw new DomainError('forbidden', UPLOAD_URL_INVALID, { code: 'upload_url_invalid' })
    const row = await this.files.findFile(uploadId)
    if (!row || row.status !== 'pending' || row.upload_kind !== 'direct') uploadNotFound()
    const declared = Number(row!.size)
    await this.store.put(row!.storage_key, Readable.from(limited(body, declared)), row!.content_type)
  }

  /**
   * Checks what the store holds against the upload (size, type) and turns it into a file. The
   * bytes are first copied to a key of their own, and that copy is what is checked and kept: the
   * upload URL stays valid until it expires, and a PUT made after the check must not change a
   * file that passed it.
   */
  async completeUpload(owner: FileOwner, uploadId: number): Promise<FileView> {
    const row = await this.files.findFile(uploadId)
    if (!row || row.owner_id !== owner.id || row.status !== 'pending' || row.upload_kind !== 'direct') return uploadNotFound()
    const pending = toStoredFile(row)
    const stored = await this.store.head(pending.storageKey)
    // Not all there (yet): the client may send the bytes again until the upload expires.
    if (!stored || stored.size !== pending.size) throw uploadIncomplete()
    const kept = newStorageKey()
    try {
      // A PUT between the size check and the copy may have changed the bytes: the copy must hold what was declared.
      const copied = (await this.store.copy(pending.storageKey, kept)) ? await this.store.head(kept) : undefined
      if (copied?.size !== pending.size) throw uploadIncomplete()
      const facts = await verifyStored(this.store, kept, { name: pending.name, declaredType: pending.contentType }, this.intakeOptions())
      if (!facts) throw uploadIncomplete()
      return await this.finish(pending, { ...facts, storageKey: kept }, await this.quotaOf(owner.tierId))
    } catch (error) {
      // What was copied is nobody's; a refusal of the bytes themselves ends the upload too.
      const refused = error instanceof DomainError && error.code !== 'upload_incomplete' && error.code !== 'service_unavailable'
      await this.discard(refused ? pending.id : undefined, [kept])
      throw error
    }
  }

  /** Where to read a file the reader may read (404 otherwise). */
  async deliver(reader: FileReader | null, id: number, client: ClientInfo): Promise<Delivery> {
    const file = await this.readable(reader, id, client)
    if (this.store.presigner) {
      const redirect = await this.store.presigner.get(file.storageKey, { expiresSeconds: this.settings.urlSeconds, contentType: file.contentType, disposition: dispositionOf(file) })
      return { file, redirect }
    }
    return { file, key: file.storageKey, contentType: file.contentType, size: file.size, etag: file.sha256 ?? String(file.id) }
  }

  /** A preset's variant of an image the reader may read: made on its first request, then kept. */
  async deliverVariant(reader: FileReader | null, id: number, preset: string, client: ClientInfo): Promise<Delivery> {
    const file = await this.readable(reader, id, client)
    const settings = this.settings.presets.get(preset)
    if (!settings || !isImageType(file.contentType)) return fileNotFound()
    let variant = await this.files.findVariant(file.id, preset)
    if (!variant) {
      await this.render(file, preset, settings)
      variant = (await this.files.findVariant(file.id, preset)) ?? fileNotFound()
    }
    const key = variant!.storage_key
    if (this.store.presigner) {
      const redirect = await this.store.presigner.get(key, { expiresSeconds: this.settings.urlSeconds, contentType: VARIANT_TYPE, disposition: 'inline' })
      return { file, redirect }
    }
    return { file, key, contentType: VARIANT_TYPE, size: Number(variant!.size), etag: `${file.sha256 ?? file.id}-${preset}` }
  }

  /** The stored bytes of a delivery (a range of them when asked). */
  open(key: string, range?: ByteRange): Promise<ObjectRead | undefined> {
    return this.store.get(key, range)
  }

  async delete(actor: FileReader, id: number): Promise<void> {
    await this.unitOfWork.run(async (unit) => {
      const row = await this.files.in(unit).findFileForChange(id)
      if (!row || row.status !== 'ready' || (row.owner_id !== actor.id && !actor.isSuperuser)) fileNotFound()
      await removeFiles(this.removal, unit, [id])
    })
  }

  /** A user's completed files, newest first (their own, or any user's for a superuser). */
  list(ownerId: number, request: PageRequest): Promise<Paged<FileView>> {
    return fetchPaged(
      request,
      { rows: (window) => this.files.listFilesOf(ownerId, window), count: () => this.files.countFilesOf(ownerId), keyOf: (row) => row.id },
      (row) => this.viewOf(toStoredFile(row)),
    )
  }

  /** Every completed file of a user's with a way to read its bytes (the data export), a page in memory at a time. */
  async *everyFileOf(ownerId: number): AsyncGenerator<{ view: FileView; open(): Promise<Readable | undefined> }> {
    for await (const view of everyItem((request) => this.list(ownerId, request))) yield { view, open: async () => (await this.store.get(view.storageKey))?.body }
  }

  async usage(owner: Pick<FileOwner, 'id' | 'tierId'>): Promise<Usage> {
    const [used, quota] = await Promise.all([this.files.findUsage(owner.id), this.quotaOf(owner.tierId)])
    return { bytes: used.bytes, files: used.files, limitBytes: quota.bytes, limitFiles: quota.files }
  }

  viewOf(file: StoredFile): FileView {
    const url = `/api/v2/files/${file.id}`
    const variants = isImageType(file.contentType) ? Object.fromEntries([...this.settings.presets.keys()].map((name) => [name, `${url}/variants/${name}`])) : {}
    return { ...file, url, variants }
  }

  /** The pending row and the reservation, in one unit: past the quota, neither is written. */
  private async begin(owner: FileOwner, name: string, reserveBytes: number, kind: 'form' | 'direct', declaredType: string): Promise<StoredFile> {
    const quota = await this.quotaOf(owner.tierId)
    const expiresAt = new Date(Date.now() + this.settings.uploadExpirySeconds * 1000).toISOString()
    return this.unitOfWork.run(async (unit) => {
      const files = this.files.in(unit)
      if (!(await files.reserve(owner.id, reserveBytes, quota))) throw quotaExceeded(quota)
      const row = await files.insertFile({
        owner_id: owner.id,
        post_id: null,
        name,
        content_type: declaredType.slice(0, 100),
        size: reserveBytes,
        sha256: null,
        storage_key: newStorageKey(),
        status: 'pending',
        upload_kind: kind,
        expires_at: expiresAt,
      })
      return toStoredFile(row)
    })
  }

  /** The upload becomes a file, counted at the size stored, within the quota (413 past it, and nothing is kept). */
  private async finish(pending: StoredFile, facts: StoredFacts & { storageKey: string }, quota: Quota): Promise<FileView> {
    const view = await this.unitOfWork.run(async (unit) => {
      const files = this.files.in(unit)
      const row = await files.markReady(pending.id, facts)
      // Completed or abandoned by another request meanwhile: this one has nothing to add.
      if (!row) return undefined
      if (!(await files.commitReserved(pending.ownerId, pending.size, facts.size, quota))) throw quotaExceeded(quota)
      // The upload's own key, where a client may still PUT until its URL expires, is nobody's now.
      if (facts.storageKey !== pending.storageKey) await this.queueUploadKeyRemoval(unit, pending)
      const file = this.viewOf(toStoredFile(row))
      await this.changes.fileChanged(unit, 'file.created', file)
      return file
    })
    return view ?? uploadNotFound()
  }

  /** Gives an upload's reservation back and queues whatever reached the store for removal. */
  async abandon(id: number): Promise<void> {
    await this.discard(id, [])
  }

  /** Abandons the upload (when given) and queues the objects for removal, in one unit. */
  private async discard(uploadId: number | undefined, keys: string[]): Promise<void> {
    await this.unitOfWork.run(async (unit) => {
      if (uploadId !== undefined && (await this.files.in(unit).findFileForChange(uploadId))?.status === 'pending') await removeFiles(this.removal, unit, [uploadId])
      await this.queueRemoval(unit, keys)
    })
  }

  /** Queues stored objects for removal in `unit` (the store's outbox removes them once it commits), at `at` (epoch ms) or now. */
  async queueRemoval(unit: Unit, keys: readonly string[], at = Date.now()): Promise<void> {
    if (keys.length === 0) return
    await this.files.in(unit).queueBlobDeletions(keys, at)
    this.removal.queued(unit)
  }

  /**
   * An ended upload's own key is removed now and, while its presigned PUT URL still works, once
   * more when it expires: a PUT made in between puts nothing back for longer than that.
   */
  private async queueUploadKeyRemoval(unit: Unit, pending: StoredFile): Promise<void> {
    await this.queueRemoval(unit, [pending.storageKey])
    const until = this.writableUntil(pending)
    if (until !== undefined && until > Date.now()) await this.queueRemoval(unit, [pending.storageKey], until)
  }

  /** Until when a presigned PUT URL may still write a direct upload's key (the store's clock skew allowed); undefined without one. */
  private writableUntil(pending: StoredFile): number | undefined {
    return pending.uploadKind === 'direct' && this.store.presigner ? this.putUrlExpiry(pending) + URL_CLOCK_SKEW_MS : undefined
  }

  /** When a direct upload's presigned PUT URL stops working: FILE_UPLOAD_URL_SECONDS after it began, at most its expiry. */
  private putUrlExpiry(pending: StoredFile): number {
    const began = Date.parse(pending.createdAt)
    return Math.min(began + this.settings.uploadUrlSeconds * 1000, pending.expiresAt === null ? Infinity : Date.parse(pending.expiresAt))
  }

  private async readable(reader: FileReader | null, id: number, client: ClientInfo): Promise<StoredFile> {
    const row = await this.files.findFile(id)
    if (!row || row.status !== 'ready') return fileNotFound()
    const file = toStoredFile(row)
    const allowed = file.postId === null ? reader !== null && (reader.id === file.ownerId || reader.isSuperuser) : await this.mayReadPost(reader, file.postId, client)
    return allowed ? file : fileNotFound()
  }

  /** One rendering per file and preset in this process at a time; another process may render too, and the first row wins. */
  private render(file: StoredFile, preset: string, settings: NonNullable<ReturnType<FileSettings['presets']['get']>>): Promise<void> {
    const name = `${file.id}:${preset}`
    const running = this.rendering.get(name)
    if (running) return running
    const work = (async () => {
      const original = await this.store.get(file.storageKey)
      if (!original) return fileNotFound()
      const chunks: Buffer[] = []
      for await (const chunk of original.body) chunks.push(chunk as Buffer)
      const data = await variantOf(Buffer.concat(chunks), settings, this.settings.maxPixels)
      const key = `${file.storageKey}.${preset}.webp`
      await this.store.put(key, data, VARIANT_TYPE)
      await this.files.insertVariant(file.id, preset, key, data.length)
    })().finally(() => this.rendering.delete(name))
    this.rendering.set(name, work)
    return work
  }

  private async quotaOf(tierId: number | null): Promise<Quota> {
    const tier = await this.tierQuota(tierId)
    return { bytes: tier.bytes ?? this.settings.defaultQuota.bytes, files: tier.files ?? this.settings.defaultQuota.files }
  }

  private intakeOptions() {
    return { allowed: this.settings.types, maxPixels: this.settings.maxPixels, imageMaxBytes: this.settings.maxBytes }
  }

  private get settings(): FileSettings {
    return this.options.settings
  }
}

/** Inline for what browsers show safely (images, PDF, text); a download for the rest. */
export function dispositionOf(file: Pick<StoredFile, 'name' | 'contentType'>): string {
  const inline = file.contentType.startsWith('image/') || file.contentType === 'application/pdf' || file.contentType === 'text/plain'
  const fallback = file.name.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return `${inline ? 'inline' : 'attachment'}; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(file.name)}`
}

/** The bytes, refusing more than `max` of them (413). */
async function* limited(body: AsyncIterable<Buffer>, max: number): AsyncIterable<Buffer> {
  let bytes = 0
  for await (const chunk of body) {
    bytes += chunk.length
    if (bytes > max) throw new DomainError('too_large', 'More bytes than the upload declared')
    yield chunk
  }
}

