import type { Kysely } from 'kysely'
import fp from 'fastify-plugin'
import type { Config } from '../config.js'
import type { Database } from '../db/schema.js'
import type { Logger } from '../logger.js'
import type { Services } from '../services.js'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    logger: Logger
    db: Kysely<Database>
    services: Services
  }
}

export interface ServicesPluginOptions {
  config: Config
  logger: Logger
  db: Kysely<Database>
  services: Services
}

/** Makes configuration, the logger, the database and the services available to every route. */
export default fp<ServicesPluginOptions>(
  async (app, { config, logger, db, services }) => {
    app.decorate('config', config)
    app.decorate('logger', logger)
    app.decorate('db', db)
    app.decorate('services', services)
  },
  { name: 'services' },
)
