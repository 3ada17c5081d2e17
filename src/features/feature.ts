// What a feature slice gives the app: its routes under each API version, routes outside the
// versions, its background jobs, its reactions to committed changes and what its cleanup
// deletes. Each slice says it in its feature.ts; src/features/index.ts lists the slices, and the
// app, the versions and the composition (src/services.ts) read only that list.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyPluginOptions, FastifyRegisterOptions } from 'fastify'

import type { Config } from '../config.js'
import type { Services } from '../services.types.js'
import type { JobOptions } from '../shared/scheduler.js'
import type { ApiVersion } from '../versions.js'
import type { DomainEvents } from './users/index.js'

/** A plugin of routes with its options, registered when its setting allows. */
export interface RouteGroup {
  register(app: FastifyInstance): Promise<void>
}

/** A route plugin as a feature lists it; `when` leaves it out when a setting turns it off. */
export function routes<Options extends FastifyPluginOptions>(
  plugin: FastifyPluginAsyncTypebox<Options>,
  options?: FastifyRegisterOptions<Options>,
  when?: (config: Config) => boolean,
): RouteGroup {
  return {
    async register(app) {
      if (when && !when(app.config)) return
      // A plugin without options of its own takes none: {} stands for them.
      await app.register(plugin, options ?? ({} as FastifyRegisterOptions<Options>))
    },
  }
}

/** What a feature's jobs and reactions are built from, once the services exist. */
export interface FeatureContext {
  services: Services
  config: Config
  domainEvents: DomainEvents
  /** Whether processes tell each other of new change events (Redis or PostgreSQL), or must read to find them. */
  crossProcessSignal: boolean
  /** The rhythm shared by the background jobs that are not a feature's own setting. */
  background: {
    /** The longest an idle relay waits between runs (a commit that queued work wakes it at once). */
    relayIdleMs: number
    /** The longest the streams' jobs and the limiter's flush wait while there is nothing to do. */
    streamIdleMs: number
  }
}

export interface Feature {
  /** Its folder's name. */
  readonly name: string
  /** The migrations (by name, in src/db/migrations/index.ts) that create or change its tables. */
  readonly migrations?: readonly string[]
  /** Its routes under each version's prefix, in the order they register. */
  readonly routes?: Partial<Record<ApiVersion, readonly RouteGroup[]>>
  /** Its routes outside the versions (a well-known document, stored files). */
  readonly appRoutes?: readonly RouteGroup[]
  /** Its background jobs (src/shared/scheduler.ts). */
  jobs?(context: FeatureContext): JobOptions[]
  /** Its reactions to committed changes: the only place a domain event is subscribed. */
  subscribe?(context: FeatureContext): void
  /** Deletes what of its own has expired; the cleanup job runs every feature's in turn. */
  prune?(services: Services): Promise<unknown>
}
