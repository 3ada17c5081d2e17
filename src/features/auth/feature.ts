// Passwords, sessions and tokens: login, refresh, logout, sessions, and the public signing keys.
import { SecretBox } from '../../shared/secret-box.js'
import { type Feature, routes } from '../feature.js'
import { authFunctions, authReadTargets } from './auth.repository.js'
import authRoutes from './auth.routes.js'
import { AuthService } from './auth.service.js'
import { authErrorCodes } from './errors.js'
import jwksRoutes from './jwks.routes.js'
import { LoginThrottle } from './login-throttle.js'
import { DatabaseRevocationStore, RedisRevocationStore } from './revocation-store.js'
import { SigningKeys } from './signing-keys.js'
import { signingKeysFunctions, signingKeysReadTargets } from './signing-keys.repository.js'
import { TokenService } from './tokens.js'

interface AuthServices {
  auth: AuthService
  /** Access and refresh tokens; its public signing keys are /.well-known/jwks.json. */
  tokens: TokenService
  /** The asymmetric signing keys (undefined with JWT_ALGORITHM=HS256): rotated by `npm run rotate-signing-key`. */
  signingKeys: SigningKeys | undefined
  /** The password doors' budgets, shared by sign-in and reauthentication. */
  loginThrottle: LoginThrottle
}

export const authFeature: Feature<AuthServices> = {
  name: 'auth',
  errors: authErrorCodes,
  needs: ['users', 'security-events', 'api-keys', 'rate-limits', 'mfa'],
  signInMethods: ({ auth }) => [auth.password],
  create({ config, secretKey, redis, logger, bind, signals, peers, signInMethods }) {
    const { jwt } = config
    const repository = bind(authFunctions, authReadTargets)
    // Retired signing keys stay published while tokens they signed live, with a margin for the other processes' minute of caching.
    const signingKeys =
      jwt.algorithm === 'HS256'
        ? undefined
        : new SigningKeys({
            repository: bind(signingKeysFunctions, signingKeysReadTargets),
            box: new SecretBox(secretKey, config.secretKeyPrevious, 'user-post-service signing keys'),
            options: { algorithm: jwt.algorithm, privateKeyPem: jwt.privateKey, previousPrivateKeyPems: jwt.previousPrivateKeys, keepRetiredMs: (config.accessTokenMinutes + 3) * 60_000 },
            onLoadError: (error) => logger.warn({ err: error }, 'the signing keys could not be read'),
          })
    const lifetimes = { accessSeconds: config.accessTokenMinutes * 60, refreshSeconds: config.refreshTokenDays * 24 * 60 * 60 }
    const tokens = new TokenService(secretKey, lifetimes, config.secretKeyPrevious, signingKeys)
    const loginThrottle = new LoginThrottle(peers.users, tokens, peers.rateLimits)
    const auth = new AuthService({
      repository,
      users: peers.users,
      passwords: peers.passwords,
      tokens,
      revocations: redis ? new RedisRevocationStore(redis) : new DatabaseRevocationStore(repository),
      events: peers.securityEvents,
      apiKeys: peers.apiKeys,
      signals,
      throttle: loginThrottle,
      secondFactors: peers.secondFactors,
      signInMethods,
    })
    return { auth, tokens, signingKeys, loginThrottle }
  },

  migrations: ['2026-11-21-02-auth-state', '2026-11-22-01-sessions-and-avatar-keys', '2026-11-26-02-signing-keys'],
  routes: { v1: [routes(authRoutes)], v2: [routes(authRoutes)] },
  appRoutes: [routes(jwksRoutes)],
  async prune(services) {
    await services.auth.pruneExpiredState()
    await services.signingKeys?.prune()
  },
}
