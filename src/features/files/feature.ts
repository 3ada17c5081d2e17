// Files: uploads to local disk or S3, attached to posts, with image variants and quotas; the
// store's outbox and its reconciling sweep.
import { type Feature, routes } from '../feature.js'
import { filesErrorCodes } from './errors.js'
import adminFilesRoutes from './files.admin.v2.routes.js'
import { filesFunctions, filesReadTargets } from './files.repository.js'
import { FileService } from './files.service.js'
import filesV2Routes from './files.v2.routes.js'
import { PostAttachments } from './post-attachments.js'
import { type FileSettings, fileSettings } from './settings.js'
import { type BlobStore, createBlobStore } from './storage/index.js'
import { STORE_RELAY_INTERVAL_MS, STORE_SWEEP_INTERVAL_MS, UPLOAD_EXPIRY_CHECK_MS } from './store-upkeep.js'
import { StoreUpkeep } from './store-upkeep.js'
import { UploadUrls } from './upload-url.js'
import uploadsV2Routes from './uploads.v2.routes.js'

interface FilesServices {
  /** Uploads, reading files under their post's rule, variants, usage. */
  files: FileService
  /** Files as posts' attachments (the posts service calls it in its units of work). */
  attachments: PostAttachments
  /** The store's outbox, expired uploads and the reconciling sweep. */
  storeUpkeep: StoreUpkeep
  /** Where files, avatars (AVATAR_STORAGE=files) and data exports are stored (STORAGE). */
  blobStore: BlobStore
}

export const filesFeature: Feature<FilesServices, { files: FileSettings }> = {
  name: 'files',
  settings: (env, { dataDir }) => ({ files: fileSettings(env, dataDir) }),
  errors: filesErrorCodes,
  needs: ['change-events', 'tiers'],
  calls: ['posts'],
  create({ config, secretKey, logger, bind, unitOfWork, jobs, peers }) {
    const repository = bind(filesFunctions, filesReadTargets)
    const blobStore = createBlobStore(config.files.storage)
    const files = new FileService({
      files: repository,
      unitOfWork,
      store: blobStore,
      changes: peers.changeEvents,
      // A file attached to a post is read under the post's rule: the posts service decides.
      mayReadPost: (reader, postId, client) => peers.posts.canRead(reader, postId, client),
      tierQuota: (tierId) => peers.tiers.storageQuotaOf(tierId),
      urls: new UploadUrls(secretKey),
      options: { settings: config.files, publicUrl: config.mail.publicUrl },
      onQueued: () => jobs.kick('store-deletions'),
    })
    const storeUpkeep = new StoreUpkeep({ files: repository, unitOfWork, store: blobStore, removal: files.removal, logger, options: { uploadExpirySeconds: config.files.uploadExpirySeconds } })
    return { files, attachments: new PostAttachments(repository, files), storeUpkeep, blobStore }
  },

  migrations: ['2026-11-30-01-files'],
  routes: { v2: [routes(filesV2Routes), routes(uploadsV2Routes), routes(adminFilesRoutes, { prefix: '/admin' })] },
  jobs: ({ services, config, background }) => [
    { name: 'store-deletions', intervalMs: STORE_RELAY_INTERVAL_MS, idleIntervalMs: background.relayIdleMs, stopOrder: 1, run: (signal) => services.storeUpkeep.removeQueued(signal) },
    // At least as often as uploads expire, so an abandoned upload's reservation is not held much longer than its expiry.
    { name: 'upload-expiry', intervalMs: Math.min(UPLOAD_EXPIRY_CHECK_MS, config.files.uploadExpirySeconds * 1000), run: () => services.storeUpkeep.abandonExpired() },
    { name: 'store-sweep', intervalMs: STORE_SWEEP_INTERVAL_MS, runAtStart: false, stopOrder: 1, run: async (signal) => (await services.storeUpkeep.sweep(signal), false) },
  ],
}
