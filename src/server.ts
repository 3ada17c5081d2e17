// Entry point: read configuration, build the app, listen, and shut down gracefully on SIGTERM.
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { ConfigError, loadConfigFromEnvironment } from './config.js'
import type { Config } from './config.js'
import { loadOrCreateSecretKey } from './modules/auth/secret-key.js'

/** How long in-flight requests get to finish after SIGTERM before the process exits anyway. */
export const SHUTDOWN_GRACE_MS = 10_000

function fail(message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}

async function main(): Promise<void> {
  let config: Config
  try {
    config = loadConfigFromEnvironment()
  } catch (error) {
    if (error instanceof ConfigError) fail(`Configuration error: ${error.message}`)
    throw error
  }

  let secretKey = config.secretKey
  let generatedKeyFile: string | undefined
  if (secretKey === undefined) {
    const stored = await loadOrCreateSecretKey(config.dataDir)
    secretKey = stored.key
    if (stored.created) generatedKeyFile = stored.file
  }

  const app = await buildApp({ config, secretKey })
  if (generatedKeyFile) {
    app.logger.warn(`SECRET_KEY is not set: generated one in ${generatedKeyFile} (development only; set SECRET_KEY in production)`)
  }

  closeWithGrace({ delay: SHUTDOWN_GRACE_MS }, async ({ signal, err }) => {
    if (err) app.logger.error({ err }, 'shutting down after an unexpected error')
    else app.logger.info({ signal }, 'shutting down: finishing in-flight requests')
    await app.close()
  })

  const address = await app.listen({ port: config.port, host: config.host })
  app.logger.info(`Server listening at ${address}`)
}

main().catch((error: unknown) => {
  fail(`Failed to start: ${error instanceof Error ? error.message : String(error)}`)
})
