// Decorates the app with what every route needs: configuration, the logger and the services.
// The services are built once per process (src/services.ts); routes never see the database.
import fp from 'fastify-plugin'

import type { Config } from '../config.js'
import type { Services } from '../features/index.js'
import type { Logger } from '../logger.js'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    logger: Logger
    services: Services
  }
}

export interface AppContextOptions {
  config: Config
  logger: Logger
  services: Services
}

export default fp<AppContextOptions>(
  async (app, { config, logger, services }) => {
    app.decorate('config', config)
    app.decorate('logger', logger)
    app.decorate('services', services)
  },
  { name: 'app-context' },
)
