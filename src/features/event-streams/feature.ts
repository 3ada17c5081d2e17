// Realtime streams of change events (server-sent events) and their tickets.
import { type Feature, routes } from '../feature.js'
import { SESSION_CHECK_MS } from './event-streams.service.js'
import eventStreamRoutes from './event-streams.v2.routes.js'

export const eventStreamsFeature: Feature = {
  name: 'event-streams',
  migrations: ['2026-11-24-07-event-stream-tickets'],
  routes: { v2: [routes(eventStreamRoutes)] },
  jobs: ({ services, background, crossProcessSignal }) => [
    // Without a signal between processes (SQLite alone), other processes' events are found by reading often while streams are open.
    { name: 'change-feed', intervalMs: crossProcessSignal ? 1000 : 250, idleIntervalMs: background.streamIdleMs, run: () => services.eventStreams.readChanges() },
    { name: 'stream-sessions', intervalMs: SESSION_CHECK_MS, idleIntervalMs: background.streamIdleMs, runAtStart: false, run: () => services.eventStreams.checkTokens() },
  ],
}
