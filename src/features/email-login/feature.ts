// Sign-in by a mailed link or code (EMAIL_LOGIN).
import { BackgroundWork } from '../../shared/background-work.js'
import { RedirectAllowList } from '../../shared/redirect-allow-list.js'
import { type Feature, routes } from '../feature.js'
import { EmailLoginService } from './email-login.service.js'
import emailLoginRoutes from './email-login.v2.routes.js'
import { type EmailLoginSettings, emailLoginSettings } from './settings.js'

interface EmailLoginServices {
  /** Sign-in by a mailed link or code. */
  emailLogin: EmailLoginService
}

export const emailLoginFeature: Feature<EmailLoginServices, { emailLogin: EmailLoginSettings }> = {
  name: 'email-login',
  signInMethods: ({ emailLogin }) => emailLogin.signInMethods,
  settings: (env, { nodeEnv }) => ({ emailLogin: emailLoginSettings(env, nodeEnv === 'development') }),
  needs: ['one-time-secrets', 'users', 'auth', 'mail', 'security-events', 'rate-limits', 'recovery'],
  create({ config, logger, unitOfWork, peers }) {
    const emailLogin = new EmailLoginService({
      secrets: peers.oneTimeSecrets,
      unitOfWork,
      users: peers.users,
      auth: peers.auth,
      mail: peers.mail,
      events: peers.securityEvents,
      limits: peers.rateLimits,
      redirects: new RedirectAllowList(config.authRedirectOrigins),
      recovery: peers.recovery,
      afterAnswer: new BackgroundWork((error) => logger.error({ err: error }, 'mailing a sign-in link failed')),
      settings: { publicUrl: config.mail.publicUrl, linkTemplate: config.mail.emailLoginUrl },
    })
    return { emailLogin }
  },

  migrations: ['2026-11-24-01-email-login'],
  routes: { v2: [routes(emailLoginRoutes, {}, (config) => config.emailLogin.enabled)] },
}
