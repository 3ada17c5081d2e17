// Every API version, each under its prefix from the version registry (src/versions.ts): the
// version's basics (its documents, deprecation headers), then each feature's routes for it, in
// the slice list's order (src/features/index.ts).
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'

import { FEATURES } from '../features/index.js'
import type { ApiVersion } from '../versions.js'
import { API_VERSIONS, VERSIONS } from '../versions.js'
import { registerVersionBasics } from './version-basics.js'

function versionPlugin(version: ApiVersion): FastifyPluginAsync {
  return async (app) => {
    await registerVersionBasics(app, version)
    for (const feature of FEATURES) for (const group of feature.routes?.[version] ?? []) await group.register(app)
  }
}

/** Routes of the features outside the versions (well-known documents, stored files). */
export async function registerFeatureAppRoutes(app: FastifyInstance): Promise<void> {
  for (const feature of FEATURES) for (const group of feature.appRoutes ?? []) await group.register(app)
}

export async function registerApiVersions(app: FastifyInstance): Promise<void> {
  for (const version of API_VERSIONS) await app.register(versionPlugin(version), { prefix: VERSIONS[version].prefix })
}
