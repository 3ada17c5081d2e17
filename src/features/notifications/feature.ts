// What a user is told of by mail (a reply to their post or comment), and their settings for it.
import { type Feature, routes } from '../feature.js'
import { notificationsFunctions, notificationsReadTargets } from './notifications.repository.js'
import { NotificationService } from './notifications.service.js'
import notificationsV2Routes from './notifications.v2.routes.js'

interface NotificationsServices {
  notifications: NotificationService
}

export const notificationsFeature: Feature<NotificationsServices> = {
  name: 'notifications',
  needs: ['mail'],
  create: ({ bind, peers }) => ({ notifications: new NotificationService({ notifications: bind(notificationsFunctions, notificationsReadTargets), mail: peers.mail }) }),
  migrations: ['2026-12-09-05-notifications'],
  routes: { v2: [routes(notificationsV2Routes)] },
}
