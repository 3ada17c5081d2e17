// The rate-limits feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export { addressGroup, addressNetwork } from './address-group.js'
export { DatabaseCounterStore, RedisCounterStore } from './counter-store.js'
export type { LimitBucket, LimitedRequest } from './rate-limits.service.js'
export { RateLimitService } from './rate-limits.service.js'
export type { Limit } from './rule.js'
export type { LimitDecision } from './shared-limiter.js'
export { SharedLimiter, storeKeyOf } from './shared-limiter.js'
