// What a feature slice gives the app: the services it builds from its peers, its routes under
// each API version, routes outside the versions, its background jobs, its reactions to committed
// changes and what its cleanup deletes. Each slice says it in its feature.ts; src/features/index.ts
// lists the slices, and the app, the versions and the composition (src/services.ts) read only
// that list.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyPluginOptions, FastifyRegisterOptions } from 'fastify'
import type { Redis } from 'ioredis'

import type { Config } from '../config.js'
import type { DatabaseHandle } from '../db/database.js'
import type { ReadTargets } from '../db/replicas/read-targets.js'
import type { Repository, RepositoryFunction } from '../db/repository.js'
import type { UnitOfWork } from '../db/unit-of-work.js'
import type { Logger } from '../logger.js'
import type { JobOptions, Scheduler } from '../shared/scheduler.js'
import type { Env } from '../shared/settings.js'
import type { Signals } from '../shared/signals.js'
import type { WarnOnce } from '../shared/warn-once.js'
import type { ApiVersion } from '../versions.js'
import type { SignInMethod } from './auth/index.js'
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

/**
 * Where a slice's app-wide request hook registers, before any route: the caller is resolved first
 * (src/plugins/authentication.ts, the core's), then each stage in this order.
 */
export const REQUEST_STAGES = [
  /** What a support impersonation may do, before anything else runs (moderation). */
  'impersonation',
  /** The request limits (rate-limits). */
  'limits',
  /** The doors anyone may knock at, and their CAPTCHA (abuse). */
  'doors',
] as const
export type RequestStage = (typeof REQUEST_STAGES)[number]

/** A plugin that hooks every request or route, at its stage. */
export interface RequestHook extends RouteGroup {
  readonly stage: RequestStage
}

/** A slice's app-wide hook as its manifest lists it. */
export function requestHook<Options extends FastifyPluginOptions>(stage: RequestStage, plugin: FastifyPluginAsyncTypebox<Options>, options?: FastifyRegisterOptions<Options>): RequestHook {
  return { stage, ...routes(plugin, options) }
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

/**
 * Every slice's services by name, and the core's: app.services, and a slice's `peers`. The slice
 * list (src/features/index.ts) fills it in from each slice's `create`, so no slice imports it.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Services {}

/** What a feature's services are built from (its `create`), once per process. */
export interface BuildContext {
  config: Config
  /** SECRET_KEY: what signs tokens and seals secrets. */
  secretKey: string
  database: DatabaseHandle
  redis: Redis | undefined
  logger: Logger
  unitOfWork: UnitOfWork
  /** Every background job of the process; a service asks one to run soon by its name (`jobs.kick`). */
  jobs: Scheduler
  /** What the services report for monitoring (src/plugins/metrics.ts listens). */
  signals: Signals
  /** A refusal that a setting decided (a passkey's origin) is told once per value, at warn. */
  settingWarnings: WarnOnce
  /** The slice's own repository functions, bound to the database, each where its repository says it runs (src/db/repository.ts). */
  bind: <Functions extends Record<string, RepositoryFunction>>(functions: Functions, targets: ReadTargets<Functions>) => Repository<Functions>
  /**
   * The other slices' services. A slice in `needs` is built first and may be held at once; a slice
   * in `calls` may be built later, so it is reached only inside a function called after the
   * composition (`(id) => peers.orgs.rolesOf(id)`). Reaching any other slice throws.
   */
  peers: Services
  /** Every slice's sign-in methods (their manifests' `signInMethods`), read once every service exists. */
  signInMethods: () => readonly SignInMethod[]
}

/** What a slice's start-up work is given, once every service exists. */
export interface StartContext {
  services: Services
  config: Config
  logger: Logger
}

export interface Feature<Provided extends object = object, Settings extends object = object> {
  /** Its folder's name. */
  readonly name: string
  /** The slices whose services it holds while it builds its own (built first; never a circle). */
  readonly needs?: readonly string[]
  /** The slices it calls only once every service exists (they may call it back). */
  readonly calls?: readonly string[]
  /**
   * Reads its settings from the environment (its settings.ts, with the readers of
   * src/shared/settings.ts): the names it adds to Config. `config` holds the core's settings and
   * those of the slices it needs; a bad value throws ConfigError, which stops the start.
   */
  readonly settings?: (env: Env, config: Config) => Settings
  /** The ways to sign in it offers (the auth slice signs in through them, knowing none by name). */
  readonly signInMethods?: (services: Services) => readonly SignInMethod[]
  /** The error codes it adds to the published table, with what each means (its errors.ts). */
  readonly errors?: Readonly<Record<string, string>>
  /** Builds its services: the names it adds to app.services. */
  create?(context: BuildContext): Provided
  /** The migrations (by name, in src/db/migrations/index.ts) that create or change its tables. */
  readonly migrations?: readonly string[]
  /** Its routes under each version's prefix, in the order they register. */
  readonly routes?: Partial<Record<ApiVersion, readonly RouteGroup[]>>
  /** Its hooks on every request or route (src/app.ts registers them by stage, before any route). */
  readonly requestHooks?: readonly RequestHook[]
  /** Its routes outside the versions (a well-known document, stored files). */
  readonly appRoutes?: readonly RouteGroup[]
  /** Starts what it keeps running while the process serves (a provider's discovery); stopped when the backends close. */
  open?(context: StartContext): Promise<{ stop(): void }>
  /** Once per deployment's start, after the migrations (the primary in cluster mode): what must exist before serving (the configured administrator). */
  prepare?(context: StartContext): Promise<void>
  /** Its background jobs (src/shared/scheduler.ts). */
  jobs?(context: FeatureContext): JobOptions[]
  /** Its reactions to committed changes: the only place a domain event is subscribed. */
  subscribe?(context: FeatureContext): void
  /** Deletes what of its own has expired; the cleanup job runs every feature's in turn. */
  prune?(services: Services): Promise<unknown>
}
