import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { API_VERSIONS, CURRENT_VERSION } from '../versions.js'

const VersionListing = Type.Object({
  available_versions: Type.Array(Type.String()),
  current_version: Type.String(),
  deprecated_versions: Type.Array(Type.String()),
  sunset_dates: Type.Record(Type.String(), Type.String({ format: 'date' })),
})

// GET /api/versions: which versions exist, which is current, which are on their way out.
const versionsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const listing = {
    available_versions: [...API_VERSIONS],
    current_version: CURRENT_VERSION,
    deprecated_versions: app.config.deprecatedVersions,
    sunset_dates: app.config.sunsetDates,
  }
  app.get('/api/versions', { schema: { hide: true, response: { 200: VersionListing } } }, async () => listing)
}

export default versionsRoutes
