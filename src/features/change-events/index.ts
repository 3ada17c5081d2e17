// The change-events feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export type { ChangeEvent, ChangeEventType, PostEventType, UserEventType } from './change-event.js'
export { CHANGE_EVENT_TYPES, eventBody } from './change-event.js'
export type { ChangeLog } from './change-events.service.js'
export { ChangeEventService } from './change-events.service.js'
