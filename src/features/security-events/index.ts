// The security-events feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export type { ClientInfo, LoginMethod, SecondFactorMethod, SecurityEventType } from './security-event.js'
export { toSecurityEventRead } from './security-events.mappers.js'
export { OwnSecurityEventQuery, SecurityEventQuery, SecurityEventRead } from './security-events.schemas.js'
export { SecurityEventService } from './security-events.service.js'
