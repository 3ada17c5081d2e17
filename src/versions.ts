// The API versions this service serves: the one registry that config.ts, the app and the docs
// read. Adding a version: add it here, then add src/api/<version>/ with its schemas, mappers
// and routes, and register it in src/api/index.ts.

export const API_VERSIONS = ['v1', 'v2'] as const
export type ApiVersion = (typeof API_VERSIONS)[number]

export interface VersionInfo {
  prefix: string
  /** The date the version became available (YYYY-MM-DD). */
  releasedOn: string
  /** The version that replaces this one, if any. */
  successor?: ApiVersion
}

export const VERSIONS: Record<ApiVersion, VersionInfo> = {
  v1: { prefix: '/services/v1', releasedOn: '2026-11-21', successor: 'v2' },
  v2: { prefix: '/api/v2', releasedOn: '2026-11-21' },
}

export const CURRENT_VERSION: ApiVersion = 'v2'

export function isApiVersion(value: string): value is ApiVersion {
  return (API_VERSIONS as readonly string[]).includes(value)
}
