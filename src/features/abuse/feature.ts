// Abuse protection: CAPTCHA on the doors (sign-up, password login, mailed sign-in and reset
// requests, invitations) when risk is raised, breached passwords refused, and address domains
// blocked. The doors' gate is an app plugin (captcha.http.ts) registered before every route.
import { type Feature, requestHook, routes } from '../feature.js'
import { breachListOf } from './breached-passwords.js'
import captchaDoors from './captcha.http.js'
import { CaptchaGate } from './captcha-gate.js'
import { verifierFor } from './captcha-verifier.js'
import { EmailDomainPolicy } from './email-domains.js'
import { emailDomainsFunctions, emailDomainsReadTargets } from './email-domains.repository.js'
import emailDomainRoutes from './email-domains.v2.routes.js'
import { abuseErrorCodes } from './errors.js'
import { PasswordScreen } from './password-screen.js'
import { RiskSignals } from './risk.js'
import { type AbuseSettings, abuseSettings } from './settings.js'

interface AbuseServices {
  /** Undefined without a CAPTCHA provider (or with CAPTCHA_MODE=off). */
  captcha: CaptchaGate | undefined
  /** New passwords against the breach list (BREACHED_PASSWORDS). */
  passwordScreen: PasswordScreen
  /** Which address domains may sign up (BLOCK_DISPOSABLE_EMAILS and the superusers' lists). */
  emailDomains: EmailDomainPolicy
}

export const abuseFeature: Feature<AbuseServices, { abuse: AbuseSettings }> = {
  name: 'abuse',
  // Before every route: each route that names a door takes a CAPTCHA token, and (with a provider) the gate.
  requestHooks: [requestHook('doors', captchaDoors)],
  settings: (env) => ({ abuse: abuseSettings(env) }),
  errors: abuseErrorCodes,
  needs: ['security-events', 'rate-limits'],
  create({ config: { abuse }, logger, bind, signals, peers: { securityEvents, rateLimits, limitCounters } }) {
    // The doors' CAPTCHA counts risk in the limiter's shared store.
    const captcha = abuse.captcha
      ? new CaptchaGate({
          settings: abuse.captcha,
          verifier: verifierFor(abuse.captcha),
          risk: new RiskSignals(limitCounters, abuse.captcha.windowSeconds, (address) => rateLimits.clientOf(address)),
          securityEvents,
          counted: (outcome, door) => signals.emit('captcha', outcome, door),
        })
      : undefined
    const passwordScreen = new PasswordScreen({ list: breachListOf(abuse.breachedPasswords), failMode: abuse.breachedPasswordsFail, securityEvents, logger, refused: () => signals.emit('password-breached') })
    const emailDomains = new EmailDomainPolicy(bind(emailDomainsFunctions, emailDomainsReadTargets), abuse.blockDisposableEmails, securityEvents, () => signals.emit('email-domain-blocked'))
    return { captcha, passwordScreen, emailDomains }
  },

  migrations: ['2026-12-01-01-abuse-protection'],
  routes: { v2: [routes(emailDomainRoutes, { prefix: '/admin' })] },
}
