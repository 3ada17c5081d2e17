// API keys: long-lived credentials for scripts and servers, scoped and revocable.
import { type Feature, routes } from '../feature.js'
import { apiKeysFunctions, apiKeysReadTargets } from './api-keys.repository.js'
import apiKeysRoutes from './api-keys.routes.js'
import { ApiKeyService } from './api-keys.service.js'
import { apiKeysErrorCodes } from './errors.js'

interface ApiKeysServices {
  apiKeys: ApiKeyService
}

const apiKeys = routes(apiKeysRoutes, { prefix: '/api-keys' })
export const apiKeysFeature: Feature<ApiKeysServices> = { name: 'api-keys',
  errors: apiKeysErrorCodes,
  needs: ['users'],
  create: ({ bind, peers }) => ({ apiKeys: new ApiKeyService(bind(apiKeysFunctions, apiKeysReadTargets), peers.users) }),
 migrations: ['2026-11-22-03-rate-limit-rules-and-api-keys'], routes: { v1: [apiKeys], v2: [apiKeys] } }
