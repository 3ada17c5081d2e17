// What the ways into an account are, and ending those someone else may have added.
import { type Feature, routes } from '../feature.js'
import recoveryRoutes from './recovery.v2.routes.js'

export const recoveryFeature: Feature = { name: 'recovery', migrations: ['2026-11-26-01-reauthentication-and-recovery'], routes: { v2: [routes(recoveryRoutes)] } }
