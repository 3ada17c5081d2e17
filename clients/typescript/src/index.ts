// A typed client for the v2 API: openapi-fetch over the types openapi-typescript generates from
// the served OpenAPI document (schema.d.ts; `npm run openapi` regenerates it, CI checks it).
import createFetchClient from 'openapi-fetch'
import type { Middleware } from 'openapi-fetch'
import type { paths } from './schema.js'

export type { components, paths } from './schema.js'

export interface ClientOptions {
  /** The service's origin, e.g. https://api.example.com (paths already start with /api/v2). */
  baseUrl: string
  /** Returns the current access token, if any, for the Authorization header. */
  accessToken?: () => string | undefined
  fetch?: typeof globalThis.fetch
}

export function createClient(options: ClientOptions) {
  const client = createFetchClient<paths>({ baseUrl: options.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) })
  const bearer: Middleware = {
    onRequest({ request }) {
      const token = options.accessToken?.()
      if (token && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${token}`)
      return request
    },
  }
  client.use(bearer)
  return client
}
