// Mail: the outbox written in the change's unit of work, its relay, templates and transports.
import { type Feature, routes } from '../feature.js'
import adminMailRoutes from './admin-mail.v2.routes.js'
import { mailErrorCodes } from './errors.js'
import { MAIL_RELAY_INTERVAL_MS } from './mail.service.js'
import { MailService } from './mail.service.js'
import { outboxFunctions, outboxReadTargets } from './outbox.repository.js'
import { createMailTransport } from './transports.js'

interface MailServices {
  mail: MailService
}

export const mailFeature: Feature<MailServices> = {
  name: 'mail',
  errors: mailErrorCodes,
  create: ({ config, logger, bind, jobs }) => ({
    mail: new MailService({
      outbox: bind(outboxFunctions, outboxReadTargets),
      transport: createMailTransport({ kind: config.mail.transport, smtpUrl: config.mail.smtpUrl, from: config.mail.from, dataDir: config.dataDir, logger }),
      logger,
      options: { templatesDir: config.mail.templatesDir, retryBaseMs: config.mail.retryBaseMs, preview: config.mail.preview },
      wake: () => jobs.kick('mail'),
    }),
  }),

  migrations: ['2026-11-22-02-account-lifecycle'],
  routes: { v2: [routes(adminMailRoutes, { prefix: '/admin' })] },
  jobs: ({ services, background }) => [
    { name: 'mail', intervalMs: MAIL_RELAY_INTERVAL_MS, idleIntervalMs: background.relayIdleMs, stopOrder: 1, run: (signal) => services.mail.dispatch(signal) },
  ],
  prune: (services) => services.mail.pruneSent(),
}
