// The event-streams feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export type { ChangeSignal } from './change-signal.js'
export { LocalSignal } from './change-signal.js'
export { EventStreamService } from './event-streams.service.js'
export { redisSignal } from './redis-signal.js'
