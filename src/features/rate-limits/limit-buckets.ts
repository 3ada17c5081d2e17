// The budgets of the flows that guard credentials and mail, from their settings.
import type { Config } from '../../config.js'
import type { LimitBucket } from './rate-limits.service.js'
import type { Limit } from './rule.js'

const LOGIN_WINDOW_SECONDS = 60
const PASSWORD_RESET_WINDOW_SECONDS = 3600
const VERIFICATION_MAIL_WINDOW_SECONDS = 3600
const EMAIL_LOGIN_WINDOW_SECONDS = 3600
const MFA_WINDOW_SECONDS = 3600

export function limitBuckets(config: Config): Record<LimitBucket, Limit> {
  const login = { limit: config.loginRateLimit, periodSeconds: LOGIN_WINDOW_SECONDS }
  const mfa = { limit: config.mfa.rateLimit, periodSeconds: MFA_WINDOW_SECONDS }
  const reset = { limit: config.passwordResetRateLimit, periodSeconds: PASSWORD_RESET_WINDOW_SECONDS }
  const emailLogin = { limit: config.emailLogin.rateLimit, periodSeconds: EMAIL_LOGIN_WINDOW_SECONDS }
  const verification = { limit: config.verificationMailRateLimit, periodSeconds: VERIFICATION_MAIL_WINDOW_SECONDS }
  return {
    'login-address': login,
    'login-account': login,
    'login-device': login,
    'mfa-address': mfa,
    'mfa-account': mfa,
    'mfa-device': mfa,
    'signup-address': config.rateLimits.signup,
    'password-reset-address': reset,
    'password-reset-email': reset,
    'email-login-address': emailLogin,
    'email-login-email': emailLogin,
    'verification-mail-user': verification,
    'verification-mail-recipient': verification,
    'invitation-org': config.orgs.invitationRateLimit,
    'invitation-inviter': config.orgs.invitationRateLimit,
  }
}
