// Second factors: TOTP authenticators, recovery codes and the step after a first factor.
import { type Feature, routes } from '../feature.js'
import mfaRoutes from './mfa.v2.routes.js'

export const mfaFeature: Feature = { name: 'mfa', migrations: ['2026-11-24-04-second-factors'], routes: { v2: [routes(mfaRoutes)] } }
