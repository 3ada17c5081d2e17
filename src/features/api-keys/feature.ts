// API keys: long-lived credentials for scripts and servers, scoped and revocable.
import { type Feature, routes } from '../feature.js'
import apiKeysRoutes from './api-keys.routes.js'

const apiKeys = routes(apiKeysRoutes, { prefix: '/api-keys' })
export const apiKeysFeature: Feature = { name: 'api-keys', migrations: ['2026-11-22-03-rate-limit-rules-and-api-keys'], routes: { v1: [apiKeys], v2: [apiKeys] } }
