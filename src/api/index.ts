// Every API version, each under its prefix from the version registry (src/versions.ts).
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'

import type { ApiVersion } from '../versions.js'
import { API_VERSIONS, VERSIONS } from '../versions.js'
import v1 from './v1/index.js'
import v2 from './v2/index.js'

const VERSION_PLUGINS: Record<ApiVersion, FastifyPluginAsync> = { v1, v2 }

export async function registerApiVersions(app: FastifyInstance): Promise<void> {
  for (const version of API_VERSIONS) await app.register(VERSION_PLUGINS[version], { prefix: VERSIONS[version].prefix })
}
