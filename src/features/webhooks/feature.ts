// Webhooks: endpoints, signed deliveries of change events, and their relay.
import { coalesced } from '../../shared/coalesced.js'
import { SecretBox } from '../../shared/secret-box.js'
import { type Feature, routes } from '../feature.js'
import { webhooksErrorCodes } from './errors.js'
import { type WebhookSettings, webhookSettings } from './settings.js'
import { WEBHOOK_RELAY_INTERVAL_MS, WebhookRelay } from './webhook-relay.js'
import { webhooksFunctions, webhooksReadTargets } from './webhooks.repository.js'
import { WebhookService } from './webhooks.service.js'
import webhookRoutes from './webhooks.v2.routes.js'

interface WebhooksServices {
  /** Webhook endpoints: their CRUD, secrets and deliveries' history. */
  webhooks: WebhookService
  /** Sends the webhooks' due deliveries (a background job). */
  webhookRelay: WebhookRelay
}

/** Commits in a burst wake the webhook relay once. */
const COMMIT_COALESCE_MS = 50

export const webhooksFeature: Feature<WebhooksServices, { webhooks: WebhookSettings }> = {
  name: 'webhooks',
  settings: (env) => ({ webhooks: webhookSettings(env) }),
  errors: webhooksErrorCodes,
  needs: ['change-events', 'security-events'],
  create({ config, secretKey, logger, bind, unitOfWork, jobs, peers: { changeEvents, securityEvents } }) {
    const webhooks = bind(webhooksFunctions, webhooksReadTargets)
    const secrets = new SecretBox(secretKey, config.secretKeyPrevious, 'user-post-service webhook secrets')
    // Commits that wrote change events wake this process's relay, once per burst; other processes' relays find them at their next run.
    changeEvents.onCommitted(coalesced(() => jobs.kick('webhooks'), COMMIT_COALESCE_MS))
    return {
      webhooks: new WebhookService({ webhooks, unitOfWork, secrets, securityEvents, options: { allowPrivate: config.webhooks.allowPrivate }, wakeRelay: () => jobs.kick('webhooks') }),
      webhookRelay: new WebhookRelay({ webhooks, changeEvents, secrets, securityEvents, logger, options: config.webhooks }),
    }
  },

  migrations: ['2026-11-24-06-webhooks'],
  routes: { v2: [routes(webhookRoutes, { prefix: '/admin' })] },
  jobs: ({ services, background }) => [
    { name: 'webhooks', intervalMs: WEBHOOK_RELAY_INTERVAL_MS, idleIntervalMs: background.relayIdleMs, stopOrder: 1, run: (signal) => services.webhookRelay.dispatch(signal) },
  ],
  prune: (services) => services.webhooks.prune(),
}
