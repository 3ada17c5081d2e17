import type { Kysely } from 'kysely'
import fp from 'fastify-plugin'
import type { Config } from '../config.js'
import type { Database } from '../db/schema.js'
import type { Services } from '../services.js'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    db: Kysely<Database>
    services: Services
  }
}

export interface ServicesPluginOptions {
  config: Config
  db: Kysely<Database>
  services: Services
}

/** Makes configuration, the database and the services available to every route. */
export default fp<ServicesPluginOptions>(
  async (app, { config, db, services }) => {
    app.decorate('config', config)
    app.decorate('db', db)
    app.decorate('services', services)
  },
  { name: 'services' },
)
