// "Download my data": the owner asks for a ZIP of everything the account holds; a durable job
// builds it in any process, and a mailed single-use link downloads it.
import { type Feature, routes } from '../feature.js'
import { DataExportService } from './data-export.service.js'
import dataExportRoutes from './data-export.v2.routes.js'
import { dataExportsFunctions, dataExportsReadTargets } from './data-exports.repository.js'
import { dataExportErrorCodes } from './errors.js'
import { exportSourcesOf } from './export-sources.mappers.js'
import { type DataExportSettings, dataExportSettings } from './settings.js'

interface DataExportServices {
  dataExports: DataExportService
}

/** How often queued exports are looked for when nothing woke the job (a request wakes it at once). */
const IDLE_MS = 60_000

export const dataExportFeature: Feature<DataExportServices, { dataExport: DataExportSettings }> = {
  name: 'data-export',
  settings: (env) => ({ dataExport: dataExportSettings(env) }),
  errors: dataExportErrorCodes,
  needs: ['files', 'mail', 'security-events', 'one-time-secrets', 'content-fields'],
  // What an export holds is read from each slice once every service exists.
  calls: ['users', 'posts', 'comments', 'reactions', 'blocks', 'reports', 'auth', 'device-alerts', 'identities', 'passkeys', 'api-keys', 'orgs'],
  create({ config, logger, bind, unitOfWork, jobs, peers }) {
    const dataExports = new DataExportService({
      exports: bind(dataExportsFunctions, dataExportsReadTargets),
      unitOfWork,
      store: peers.blobStore,
      collaborators: {
        sources: exportSourcesOf(peers),
        ownerOf: async (userId) => {
          const user = await peers.users.find(userId)
          return user && { id: user.id, email: user.email, name: user.name, locale: user.locale }
        },
        queueRemoval: (unit, keys) => peers.files.queueRemoval(unit, keys),
      },
      mail: peers.mail,
      events: peers.securityEvents,
      secrets: peers.oneTimeSecrets,
      settings: { ...config.dataExport, publicUrl: config.mail.publicUrl },
      logger,
      queued: () => jobs.kick('data-exports'),
    })
    return { dataExports }
  },

  migrations: ['2026-12-05-01-data-exports'],
  routes: { v2: [routes(dataExportRoutes)] },
  jobs: ({ services }) => [{ name: 'data-exports', intervalMs: 1_000, idleIntervalMs: IDLE_MS, run: (signal) => services.dataExports.buildNext(signal) }],
  prune: (services) => services.dataExports.prune(),
}
