// Avatars: uploads, their storage (disk or database) and serving them.
import { type Feature, routes } from '../feature.js'
import mediaRoutes from './media.routes.js'

export const avatarsFeature: Feature = { name: 'avatars', migrations: ['2026-11-21-03-avatars', '2026-11-22-01-sessions-and-avatar-keys'], appRoutes: [routes(mediaRoutes)] }
