// What changed (users, posts), written in the change's unit of work, for webhooks and streams.
import type { Feature } from '../feature.js'

export const changeEventsFeature: Feature = { name: 'change-events', migrations: ['2026-11-24-06-webhooks'], prune: (services) => services.changeEvents.prune() }
