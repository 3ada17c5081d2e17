// Each version's own OpenAPI document (<prefix>/openapi.json) and Swagger UI (<prefix>/docs),
// listing only that version's routes. Registered inside the version's plugin, so the document
// collects exactly the routes registered after it in that encapsulated context.
import helmet from '@fastify/helmet'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'

import { ERROR_CODES } from '../features/index.js'
import type { ApiVersion } from '../versions.js'
import { VERSIONS } from '../versions.js'
import { API_KEY_SCHEME, SECURITY_SCHEME } from './common/security-scheme.js'

export interface DocsOptions {
  version: ApiVersion
  deprecated: boolean
}

const MULTIPART_FILE_BODY = {
  type: 'object',
  required: ['file'],
  properties: { file: { type: 'string', format: 'binary', description: 'The image' } },
}

/**
 * A stable operationId from the method and the path under the version's prefix:
 * `GET /api/v2/users/{user_id}/sessions` → `getUsersByUserIdSessions`.
 */
export function operationIdOf(method: string | string[], url: string, prefix: string): string {
  const verb = (Array.isArray(method) ? method[0] ?? 'get' : method).toLowerCase()
  const words = url
    .slice(url.startsWith(prefix) ? prefix.length : 0)
    .split('/')
    .filter((segment) => segment !== '')
    .flatMap((segment) => {
      const parameter = /^[:{](\w+)}?$/.exec(segment)?.[1]
      return parameter === undefined ? segment.split(/[-_]/) : ['by', ...parameter.split('_')]
    })
  return verb + words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('')
}

/** The table of every error code, as Markdown (each version's document carries it in its description). */
const ERROR_CODE_TABLE = ['| code | meaning |', '|---|---|', ...Object.entries(ERROR_CODES).map(([code, meaning]) => `| \`${code}\` | ${meaning} |`)].join('\n')

const ERRORS_SECTION = [
  '## Errors',
  'Every error body is `{detail, code}`: `detail` is a sentence for people, `code` a stable name for programs to match on (a 422 adds `errors`, one item per failing field).',
  ERROR_CODE_TABLE,
].join('\n\n')

interface ObjectSchema {
  properties?: Record<string, { default?: unknown }>
  required?: string[]
}

/** The object schema with every property that has a default taken out of `required`. */
function defaultsOptional(schema: unknown): unknown {
  const object = schema as ObjectSchema | undefined
  if (!object?.required || !object.properties) return schema
  const { properties } = object
  return { ...object, required: object.required.filter((name) => properties[name]?.default === undefined) }
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
        license: { name: 'MIT', identifier: 'MIT' },
        description: `Users, login and posts, version ${version}, served under \`${prefix}\`.${notice}\n\n${ERRORS_SECTION}`,
      },
      // Paths carry the version's prefix, so the API is served from the root of this host.
      servers: [{ url: '/', description: 'This server' }],
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
    transform: ({ schema, url, route }) => {
      const consumes = (schema as { consumes?: string[] }).consumes ?? []
      const transformed: Record<string, unknown> = { operationId: operationIdOf(route.method, url, prefix), ...schema }
      // Routes that name no scheme are public, and say so.
      transformed.security ??= []
      // A field with a default may be left out (validation fills it in): the document says so,
      // and a generated client does not ask for it.
      for (const part of ['querystring', 'body'] as const) transformed[part] = defaultsOptional(transformed[part])
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
