// The admin feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export { managedUserReads } from './managed-user.http.js'
export { OverviewService } from './overview.service.js'
