import type { FastifyInstance } from 'fastify'

import type { ApiVersion } from '../versions.js'
import docs from './docs.js'
import lifecycle from './version-lifecycle.js'

/** What every version plugin registers first: its lifecycle (deprecation, sunset, 404s) and its docs. */
export async function registerVersionBasics(app: FastifyInstance, version: ApiVersion): Promise<void> {
  const deprecated = app.config.deprecatedVersions.includes(version)
  await app.register(lifecycle, { version, deprecated, sunsetDate: app.config.sunsetDates[version] })
  await app.register(docs, { version, deprecated })
}
