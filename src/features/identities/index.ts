// The identities feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export { toIdentityRead } from './auth-providers.v2.mappers.js'
export { IdentityIdParams, IdentityRead } from './auth-providers.v2.schemas.js'
export { discoverProviders } from './discovery.js'
export { IdentityService } from './identities.service.js'
