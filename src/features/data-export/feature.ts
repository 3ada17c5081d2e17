// "Download my data": the owner asks for a ZIP of everything the account holds; a durable job
// builds it in any process, and a mailed single-use link downloads it.
import { type Feature, routes } from '../feature.js'
import dataExportRoutes from './data-export.v2.routes.js'

/** How often queued exports are looked for when nothing woke the job (a request wakes it at once). */
const IDLE_MS = 60_000

export const dataExportFeature: Feature = {
  name: 'data-export',
  migrations: ['2026-12-05-01-data-exports'],
  routes: { v2: [routes(dataExportRoutes)] },
  jobs: ({ services }) => [{ name: 'data-exports', intervalMs: 1_000, idleIntervalMs: IDLE_MS, run: (signal) => services.dataExports.buildNext(signal) }],
  prune: (services) => services.dataExports.prune(),
}
