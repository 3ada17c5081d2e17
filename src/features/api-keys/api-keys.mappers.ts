// An API key's wire shape, without its secret (shown once, at creation).
import type { ApiKey } from './api-key.js'

export const toApiKeyRead = (key: ApiKey) => ({
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  scopes: key.scopes,
  created_at: key.createdAt,
  expires_at: key.expiresAt,
  last_used_at: key.lastUsedAt,
})
