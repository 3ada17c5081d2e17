// Webhooks: endpoints, signed deliveries of change events, and their relay.
import { type Feature, routes } from '../feature.js'
import { WEBHOOK_RELAY_INTERVAL_MS } from './webhook-relay.js'
import webhookRoutes from './webhooks.v2.routes.js'

export const webhooksFeature: Feature = {
  name: 'webhooks',
  migrations: ['2026-11-24-06-webhooks'],
  routes: { v2: [routes(webhookRoutes, { prefix: '/admin' })] },
  jobs: ({ services, background }) => [
    { name: 'webhooks', intervalMs: WEBHOOK_RELAY_INTERVAL_MS, idleIntervalMs: background.relayIdleMs, stopOrder: 1, run: (signal) => services.webhookRelay.dispatch(signal) },
  ],
  prune: (services) => services.webhooks.prune(),
}
