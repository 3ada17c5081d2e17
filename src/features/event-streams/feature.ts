// Realtime streams of change events (server-sent events) and their tickets.
import { postgresSignal } from '../../db/change-notifications.js'
import { isPostgres } from '../../db/dialect.js'
import { type Feature, routes } from '../feature.js'
import { LocalSignal } from './change-signal.js'
import { eventStreamsErrorCodes } from './errors.js'
import { SESSION_CHECK_MS } from './event-streams.service.js'
import { EventStreamService } from './event-streams.service.js'
import eventStreamRoutes from './event-streams.v2.routes.js'
import { redisSignal } from './redis-signal.js'
import { type EventStreamSettings, eventStreamSettings } from './settings.js'

interface EventStreamsServices {
  /** Realtime streams of change events (server-sent events). */
  eventStreams: EventStreamService
}

export const eventStreamsFeature: Feature<EventStreamsServices, { eventStreams: EventStreamSettings }> = {
  name: 'event-streams',
  settings: (env) => ({ eventStreams: eventStreamSettings(env) }),
  errors: eventStreamsErrorCodes,
  needs: ['one-time-secrets', 'auth', 'change-events', 'rate-limits'],
  calls: ['posts', 'orgs', 'blocks'],
  create({ config, database: { db }, redis, logger, jobs, peers }) {
    const signalError = (error: unknown) => logger.warn({ err: error }, 'the change signal between processes failed; streams fall back to polling')
    const eventStreams = new EventStreamService({
      secrets: peers.oneTimeSecrets,
      auth: peers.auth,
      changeEvents: peers.changeEvents,
      makeSignal: () =>
        redis
          ? redisSignal(redis, `${config.redisKeyPrefix}change-events`, signalError)
          : isPostgres(db)
            ? postgresSignal(config.databaseDirectUrl ?? config.databaseUrl ?? '', db, signalError)
            : Promise.resolve(new LocalSignal()),
      logger,
      options: {
        heartbeatMs: config.eventStreams.heartbeatSeconds * 1000,
        perUser: config.eventStreams.perUser,
        perAddress: config.eventStreams.perAddress,
        clientOf: (address) => peers.rateLimits.clientOf(address),
        facts: {
          posts: (ids) => peers.posts.liveFactsOf(ids),
          mfaRules: (orgIds) => peers.orgs.mfaRulesOf(orgIds),
          grants: (userId) => peers.orgs.grantsOf(userId),
          blocked: (userIds) => peers.blocks.blockedByEach(userIds),
        },
      },
      // New events are read at once; a new stream's token joins the next check.
      wake: (job) => (job === 'change-feed' ? jobs.kick(job) : jobs.job(job)?.soon()),
    })
    return { eventStreams }
  },

  migrations: ['2026-11-24-07-event-stream-tickets'],
  routes: { v2: [routes(eventStreamRoutes)] },
  jobs: ({ services, background, crossProcessSignal }) => [
    // Without a signal between processes (SQLite alone), other processes' events are found by reading often while streams are open.
    { name: 'change-feed', intervalMs: crossProcessSignal ? 1000 : 250, idleIntervalMs: background.streamIdleMs, run: () => services.eventStreams.readChanges() },
    { name: 'stream-sessions', intervalMs: SESSION_CHECK_MS, idleIntervalMs: background.streamIdleMs, runAtStart: false, run: () => services.eventStreams.checkTokens() },
  ],
}
