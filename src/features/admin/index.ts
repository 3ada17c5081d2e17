// The admin feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export { toManagedUserRead } from './admin.v2.mappers.js'
export { ManagedUserRead } from './admin.v2.schemas.js'
export { OverviewService } from './overview.service.js'
