// Each version's own OpenAPI document (<prefix>/openapi.json) and Swagger UI (<prefix>/docs),
// listing only that version's routes. Registered inside the version's plugin, so the document
// collects exactly the routes registered after it in that encapsulated context.
import helmet from '@fastify/helmet'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import type { ApiVersion } from '../versions.js'
import { API_KEY_SCHEME, SECURITY_SCHEME } from './common/security-scheme.js'
import { VERSIONS } from '../versions.js'

export interface DocsOptions {
  version: ApiVersion
  deprecated: boolean
}

const MULTIPART_FILE_BODY = {
  type: 'object',
  required: ['file'],
  properties: { file: { type: 'string', format: 'binary', description: 'The image' } },
}

const docs: FastifyPluginAsync<DocsOptions> = async (app, { version, deprecated }) => {
  const { prefix, successor } = VERSIONS[version]
  const notice = deprecated && successor ? ` **Deprecated**: use ${successor} (${VERSIONS[successor].prefix}/docs).` : ''
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `User and Post Service API ${version}`,
        version,
        description: `Users, login and posts, version ${version}, served under \`${prefix}\`.${notice}`,
      },
      components: {
        securitySchemes: {
          [SECURITY_SCHEME]: { type: 'oauth2', flows: { password: { tokenUrl: `${prefix}/login`, scopes: {} } } },
          [API_KEY_SCHEME]: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'A key from POST /api-keys: acts as its owner; a read key may only GET',
          },
        },
      },
      tags: [
        { name: 'login', description: 'Tokens: log in, refresh, log out' },
        { name: 'account', description: 'Email verification, password reset and change, sessions, security events' },
        { name: 'users', description: 'User records' },
        { name: 'posts', description: 'Posts' },
        { name: 'tiers', description: 'Subscription tiers and their rate limits' },
        { name: 'api-keys', description: 'API keys for server-to-server callers' },
      ],
    },
    // Multipart routes read their file by hand, so Fastify gets no body schema for them;
    // the document still describes the form. Deprecated versions mark every operation.
    transform: ({ schema, url }) => {
      const consumes = (schema as { consumes?: string[] }).consumes ?? []
      const transformed: Record<string, unknown> = { ...schema }
      if (consumes.includes('multipart/form-data')) transformed.body = MULTIPART_FILE_BODY
      if (deprecated) transformed.deprecated = true
      return { schema: transformed, url }
    },
  })
  // The UI is a web page: it gets helmet's browser policy (scripts and styles from this origin),
  // in its own encapsulated scope so the API routes keep their stricter headers.
  await app.register(async (page) => {
    await page.register(helmet, {
      global: true,
      crossOriginResourcePolicy: { policy: 'same-origin' },
      referrerPolicy: { policy: 'no-referrer' },
      // TLS usually ends at a proxy: the page must also work on a plain-HTTP host.
      contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
    })
    await page.register(swaggerUi, {
      routePrefix: '/docs',
      // The page links its assets from routePrefix alone; inside the version's prefix they need it too.
      indexPrefix: prefix,
      uiConfig: { docExpansion: 'list', deepLinking: true, displayRequestDuration: true },
      theme: { title: `User and Post Service API ${version}` },
    })
  })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}

export default fp(docs, { name: 'api-docs', encapsulate: false })
