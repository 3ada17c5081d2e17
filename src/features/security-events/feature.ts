// The security log: sign-ins, failures, changes to ways in, kept SECURITY_EVENT_RETENTION_DAYS.
import type { Feature } from '../feature.js'

export const securityEventsFeature: Feature = { name: 'security-events', migrations: ['2026-11-22-02-account-lifecycle'], prune: (services) => services.securityEvents.prune() }
