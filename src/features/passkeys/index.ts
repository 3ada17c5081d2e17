// The passkeys feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export { PasskeyService } from './passkeys.service.js'
export { toPasskeyRead } from './passkeys.v2.mappers.js'
export { AssertionCredential, MfaPasskeyOptionsRequest, WebauthnOptions } from './passkeys.v2.schemas.js'
export type { PublicKeyCredentialRequestOptionsJSON } from './webauthn.js'
