// Mail: the outbox written in the change's unit of work, its relay, templates and transports.
import { type Feature, routes } from '../feature.js'
import adminMailRoutes from './admin-mail.v2.routes.js'
import { MAIL_RELAY_INTERVAL_MS } from './mail.service.js'

export const mailFeature: Feature = {
  name: 'mail',
  migrations: ['2026-11-22-02-account-lifecycle'],
  routes: { v2: [routes(adminMailRoutes, { prefix: '/admin' })] },
  jobs: ({ services, background }) => [
    { name: 'mail', intervalMs: MAIL_RELAY_INTERVAL_MS, idleIntervalMs: background.relayIdleMs, stopOrder: 1, run: (signal) => services.mail.dispatch(signal) },
  ],
  prune: (services) => services.mail.pruneSent(),
}
