// Reports of posts, comments and users, and the queues moderators resolve them from.
import { type Feature, routes } from '../feature.js'
import { reportsErrorCodes } from './errors.js'
import { reportsFunctions, reportsReadTargets } from './reports.repository.js'
import { ReportService } from './reports.service.js'
import reportsV2Routes from './reports.v2.routes.js'

interface ReportsServices {
  reports: ReportService
}

export const reportsFeature: Feature<ReportsServices> = {
  name: 'reports',
  errors: reportsErrorCodes,
  needs: ['posts', 'comments', 'users', 'moderation', 'mail', 'security-events'],
  create: ({ bind, unitOfWork, peers }) => ({
    reports: new ReportService({ reports: bind(reportsFunctions, reportsReadTargets), unitOfWork, posts: peers.posts, comments: peers.comments, users: peers.users, bans: peers.bans, mail: peers.mail, securityEvents: peers.securityEvents }),
  }),
  migrations: ['2026-12-09-04-reports'],
  routes: { v2: [routes(reportsV2Routes)] },
}
