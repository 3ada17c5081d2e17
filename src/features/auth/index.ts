// The auth feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export { SessionIdParams, SessionRead, TokenResponse } from './auth.schemas.js'
export type { BrowserSession, Caller, SessionProof, SignIn, SignInObserver, TokenCaller } from './auth.service.js'
export { AuthService, invalidCredentials } from './auth.service.js'
export { LoginThrottle } from './login-throttle.js'
export { DatabaseRevocationStore, RedisRevocationStore } from './revocation-store.js'
export type { EnrolmentSessions, PasskeyResponse, PasskeySignIn, SecondFactorChallenge, SecondFactorGate, SecondFactorProof, TakenChallenge } from './second-factor-gate.js'
export { enrolmentSessions } from './second-factor-gate.js'
export { toSessionRead } from './sessions.mappers.js'
export { SigningKeys } from './signing-keys.js'
export { refuseCrossSiteLogins, tokenReplies } from './token-reply.http.js'
export type { ImpersonationMode, TokenActor, VerifiedToken } from './tokens.js'
export { TOKEN_AUDIENCE, TOKEN_ISSUER, TokenService } from './tokens.js'
