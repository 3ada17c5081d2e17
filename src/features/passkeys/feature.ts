// Passkeys (WebAuthn): registration, sign-in, and the second factor.
import { type Feature, routes } from '../feature.js'
import passkeysRoutes from './passkeys.v2.routes.js'

export const passkeysFeature: Feature = { name: 'passkeys', migrations: ['2026-11-24-05-passkeys'], routes: { v2: [routes(passkeysRoutes)] } }
