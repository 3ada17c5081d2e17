// Recent proof of identity for sensitive actions.
import { type Feature, routes } from '../feature.js'
import reauthenticationRoutes from './reauthentication.v2.routes.js'

export const reauthenticationFeature: Feature = { name: 'reauthentication', migrations: ['2026-11-26-01-reauthentication-and-recovery'], routes: { v2: [routes(reauthenticationRoutes)] } }
