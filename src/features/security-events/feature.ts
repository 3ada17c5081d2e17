// The security log: sign-ins, failures, changes to ways in, kept SECURITY_EVENT_RETENTION_DAYS.
import type { Feature } from '../feature.js'
import { securityEventsFunctions, securityEventsReadTargets } from './security-events.repository.js'
import { SecurityEventService } from './security-events.service.js'

interface SecurityEventsServices {
  securityEvents: SecurityEventService
}

export const securityEventsFeature: Feature<SecurityEventsServices> = { name: 'security-events',
  create: ({ config, bind }) => ({ securityEvents: new SecurityEventService(bind(securityEventsFunctions, securityEventsReadTargets), config.securityEventRetentionDays) }),
 migrations: ['2026-11-22-02-account-lifecycle'], prune: (services) => services.securityEvents.prune() }
