import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import type { ApiVersion } from '../versions.js'
import { API_VERSIONS, CURRENT_VERSION, VERSIONS } from '../versions.js'

const VersionListing = Type.Object({
  available_versions: Type.Array(Type.String()),
  current_version: Type.String(),
  deprecated_versions: Type.Array(Type.String()),
  sunset_dates: Type.Record(Type.String(), Type.String({ format: 'date' })),
})

// GET /api/versions: which versions answer, which is current, which are on their way out. A
// version past its sunset date answers 410 and is no longer listed as available or deprecated;
// its date stays in sunset_dates.
const versionsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { deprecatedVersions, sunsetDates } = app.config
  const retired = (version: ApiVersion) => {
    const date = sunsetDates[version]
    return date !== undefined && Date.now() >= Date.parse(`${date}T00:00:00Z`)
  }
  // GET /: where to go from here, for a person who opened the service's address in a browser.
  const home = {
    name: 'user-post-service',
    docs: Object.fromEntries(API_VERSIONS.map((version) => [version, `${VERSIONS[version].prefix}/docs`])),
    openapi: Object.fromEntries(API_VERSIONS.map((version) => [version, `${VERSIONS[version].prefix}/openapi.json`])),
    versions: '/api/versions',
    health: '/health',
    ...(app.config.adminConsole ? { admin_console: '/admin/' } : {}),
  }
  app.get('/', { schema: { hide: true } }, async () => home)

  app.get('/api/versions', { schema: { hide: true, response: { 200: VersionListing } } }, async () => ({
    available_versions: API_VERSIONS.filter((version) => !retired(version)),
    current_version: CURRENT_VERSION,
    deprecated_versions: deprecatedVersions.filter((version) => !retired(version)),
    sunset_dates: sunsetDates,
  }))
}

export default versionsRoutes
