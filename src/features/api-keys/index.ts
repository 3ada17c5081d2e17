// The api-keys feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export type { ApiKeyGrant } from './api-key.js'
export { grantAllows } from './api-key.js'
export { toApiKeyRead } from './api-keys.mappers.js'
export { ApiKeyIdParams, ApiKeyRead } from './api-keys.schemas.js'
export { ApiKeyService } from './api-keys.service.js'
