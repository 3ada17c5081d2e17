import { toIsoString } from '../../shared/timestamps.js'
import type { ApiKeyRow } from './api-keys.repository.js'

export type ApiKeyScope = 'read' | 'write'

/** An API key as its owner sees it: never the secret, which exists only in the creation answer. */
export interface ApiKey {
  id: number
  name: string
  prefix: string
  scopes: ApiKeyScope[]
  createdAt: string
  expiresAt: string | null
  lastUsedAt: string | null
}

/** What a presented key grants: acting as its owner, within its scopes. */
export interface ApiKeyGrant {
  keyId: number
  userId: number
  scopes: ApiKeyScope[]
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Whether a key's scopes allow an HTTP method: `read` allows reads only, `write` everything else. */
export const grantAllows = (grant: ApiKeyGrant, method: string): boolean => grant.scopes.includes(READ_METHODS.has(method) ? 'read' : 'write')

export const parseScopes = (text: string): ApiKeyScope[] => text.split(',').filter((scope): scope is ApiKeyScope => scope === 'read' || scope === 'write')

export const toApiKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  scopes: parseScopes(row.scopes),
  createdAt: toIsoString(row.created_at),
  expiresAt: row.expires_at === null ? null : toIsoString(row.expires_at),
  lastUsedAt: row.last_used_at === null ? null : toIsoString(row.last_used_at),
})
