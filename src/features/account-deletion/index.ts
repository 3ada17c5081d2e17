// The account-deletion feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export type { CancelProof } from './account-deletion.service.js'
export { AccountDeletionService } from './account-deletion.service.js'
export type { AccountDeletionSettings } from './settings.js'
export { accountDeletionSettings } from './settings.js'
