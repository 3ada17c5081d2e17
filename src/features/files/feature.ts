// Files: uploads to local disk or S3, attached to posts, with image variants and quotas; the
// store's outbox and its reconciling sweep.
import { type Feature, routes } from '../feature.js'
import adminFilesRoutes from './files.admin.v2.routes.js'
import filesV2Routes from './files.v2.routes.js'
import { STORE_RELAY_INTERVAL_MS, STORE_SWEEP_INTERVAL_MS, UPLOAD_EXPIRY_CHECK_MS } from './store-upkeep.js'
import uploadsV2Routes from './uploads.v2.routes.js'

export const filesFeature: Feature = {
  name: 'files',
  migrations: ['2026-11-30-01-files'],
  routes: { v2: [routes(filesV2Routes), routes(uploadsV2Routes), routes(adminFilesRoutes, { prefix: '/admin' })] },
  jobs: ({ services, config, background }) => [
    { name: 'store-deletions', intervalMs: STORE_RELAY_INTERVAL_MS, idleIntervalMs: background.relayIdleMs, stopOrder: 1, run: (signal) => services.storeUpkeep.removeQueued(signal) },
    // At least as often as uploads expire, so an abandoned upload's reservation is not held much longer than its expiry.
    { name: 'upload-expiry', intervalMs: Math.min(UPLOAD_EXPIRY_CHECK_MS, config.files.uploadExpirySeconds * 1000), run: () => services.storeUpkeep.abandonExpired() },
    { name: 'store-sweep', intervalMs: STORE_SWEEP_INTERVAL_MS, runAtStart: false, stopOrder: 1, run: async (signal) => (await services.storeUpkeep.sweep(signal), false) },
  ],
}
