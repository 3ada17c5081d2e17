// Deprecation and sunset of an API version, by configuration (DEPRECATED_VERSIONS, SUNSET_DATES).
// A deprecated version answers with X-API-Deprecation, X-API-Sunset, Deprecation (RFC 9745),
// Sunset (RFC 8594) and a Link to its successor's docs; past its sunset date it answers 410.
import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'

import { notFoundHandler } from '../plugins/error-handler.js'
import { DomainError } from '../shared/errors.js'
import type { ApiVersion } from '../versions.js'
import { CURRENT_VERSION, VERSIONS } from '../versions.js'

export interface LifecycleOptions {
  version: ApiVersion
  deprecated: boolean
  /** YYYY-MM-DD; the version retires at 00:00 UTC that day. */
  sunsetDate: string | undefined
}

const lifecycle: FastifyPluginAsync<LifecycleOptions> = async (app, { version, deprecated, sunsetDate }) => {
  // Every response of the version, unknown routes included, goes through this context.
  app.setNotFoundHandler(notFoundHandler)
  if (!deprecated) return

  const successor = VERSIONS[version].successor ?? CURRENT_VERSION
  const successorPrefix = VERSIONS[successor].prefix
  // Deprecated since its successor became available.
  const deprecatedSince = Date.parse(`${VERSIONS[successor].releasedOn}T00:00:00Z`)
  const headers: Record<string, string> = {
    'x-api-deprecation': `API ${version} is deprecated; use ${successor} at ${successorPrefix}`,
    deprecation: `@${Math.floor(deprecatedSince / 1000)}`,
    link: `<${successorPrefix}/docs>; rel="successor-version"`,
  }
  const sunsetAt = sunsetDate === undefined ? undefined : Date.parse(`${sunsetDate}T00:00:00Z`)
  if (sunsetAt !== undefined) {
    headers['x-api-sunset'] = sunsetDate as string
    headers.sunset = new Date(sunsetAt).toUTCString()
  }
  const retired = `API ${version} was retired on ${sunsetDate}; use ${successor} at ${successorPrefix}`

  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(headers)
    if (sunsetAt !== undefined && Date.now() >= sunsetAt) throw new DomainError('gone', retired)
  })
}

export default fp(lifecycle, { name: 'version-lifecycle', encapsulate: false })
