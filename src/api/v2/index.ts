// Version 2, served under /api/v2: the same services through v2's shapes (docs/api.md, Version 2).
import type { FastifyPluginAsync } from 'fastify'

import accountRoutes from '../common/account.routes.js'
import apiKeysRoutes from '../common/api-keys.routes.js'
import authRoutes from '../common/auth.routes.js'
import { toPostRead } from '../common/posts.mappers.js'
import postsRoutes from '../common/posts.routes.js'
import rateLimitRulesRoutes from '../common/rate-limit-rules.routes.js'
import tiersRoutes from '../common/tiers.routes.js'
import { registerVersionBasics } from '../version-basics.js'
import adminRoutes from './admin.routes.js'
import adminMailRoutes from './admin-mail.routes.js'
import authProviderRoutes from './auth-providers.routes.js'
import emailLoginRoutes from './email-login.routes.js'
import eventStreamRoutes from './event-streams.routes.js'
import mfaRoutes from './mfa.routes.js'
import passkeysRoutes from './passkeys.routes.js'
import reauthenticationRoutes from './reauthentication.routes.js'
import recoveryRoutes from './recovery.routes.js'
import signupRoutes from './signup.routes.js'
import usersRoutesV2 from './users.routes.js'
import webhookRoutes from './webhooks.routes.js'

const v2: FastifyPluginAsync = async (app) => {
  await registerVersionBasics(app, 'v2')
  await app.register(authRoutes)
  await app.register(accountRoutes, { resetConfirmation: 'own' })
  await app.register(recoveryRoutes)
  await app.register(reauthenticationRoutes)
  await app.register(signupRoutes)
  if (app.config.emailLogin.enabled) await app.register(emailLoginRoutes)
  await app.register(authProviderRoutes)
  await app.register(mfaRoutes)
  await app.register(passkeysRoutes)
  await app.register(usersRoutesV2, { prefix: '/users' })
  await app.register(postsRoutes, { prefix: '/posts', list: 'envelope', toPostRead })
  await app.register(tiersRoutes, { prefix: '/tiers' })
  await app.register(rateLimitRulesRoutes, { prefix: '/tiers' })
  await app.register(apiKeysRoutes, { prefix: '/api-keys' })
  await app.register(adminRoutes, { prefix: '/admin' })
  await app.register(adminMailRoutes, { prefix: '/admin' })
  await app.register(webhookRoutes, { prefix: '/admin' })
  await app.register(eventStreamRoutes)
}

export default v2
