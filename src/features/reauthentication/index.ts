// The reauthentication feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export { ReauthenticationService } from './reauthentication.service.js'
export { EndedWaysInRead, PasswordResetConfirmationV2, WaysInRead, WaysInRequest } from './reauthentication.v2.schemas.js'
