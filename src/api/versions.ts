// The API versions this service serves. Adding a version: add it here and in API_VERSIONS
// (src/config.ts), then add src/api/<version>/ with its schemas, mappers and routes.
import type { ApiVersion } from '../config.js'

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
