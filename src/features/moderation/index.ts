// The moderation feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export { BanService } from './bans.service.js'
export { ImpersonationService } from './impersonations.service.js'
export type { ModerationSettings } from './settings.js'
export { moderationSettings } from './settings.js'
