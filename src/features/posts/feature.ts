// Posts: create, read, list, search, update and delete, each decided by the post policy
// (post-policy.ts); version 2 adds visibility, status and organizations.
import { type Feature, routes } from '../feature.js'
import { isBanned } from '../users/index.js'
import { postsErrorCodes } from './errors.js'
import { postRevisionFunctions, postRevisionReadTargets } from './post-revisions.repository.js'
import postRevisionsRoutes from './post-revisions.v2.routes.js'
import { postScheduleFunctions, postScheduleReadTargets } from './post-schedule.repository.js'
import { postSearchFunctions, postSearchReadTargets } from './post-search.repository.js'
import { postTrashFunctions, postTrashReadTargets } from './post-trash.repository.js'
import postTrashRoutes from './post-trash.v2.routes.js'
import { toPostRead, toPostReadV2 } from './posts.mappers.js'
import { postsFunctions, postsReadTargets } from './posts.repository.js'
import postsRoutes from './posts.routes.js'
import { PostCreate, PostRead, postShapesV2, PostUpdate } from './posts.schemas.js'
import { PostService } from './posts.service.js'
import postsV2Routes from './posts.v2.routes.js'
import { type PostSettings, postSettings } from './settings.js'

interface PostsServices {
  posts: PostService
}

export const postsFeature: Feature<PostsServices, { posts: PostSettings }> = {
  name: 'posts',
  settings: (env) => ({ posts: postSettings(env) }),
  errors: postsErrorCodes,
  needs: ['change-events', 'security-events', 'content-fields'],
  calls: ['orgs', 'files', 'reactions', 'users'],
  create({ config, bind, unitOfWork, peers, jobs }) {
    const posts = new PostService({
      posts: bind(postsFunctions, postsReadTargets),
      searchIndex: bind(postSearchFunctions, postSearchReadTargets),
      revisions: bind(postRevisionFunctions, postRevisionReadTargets),
      trash: bind(postTrashFunctions, postTrashReadTargets),
      schedule: bind(postScheduleFunctions, postScheduleReadTargets),
      authors: {
        mayPublish: async (authorId) => {
          const author = await peers.users.find(authorId)
          return author !== undefined && !isBanned(author)
        },
      },
      onScheduled: () => jobs.kick('scheduled-posts'),
      unitOfWork,
      changes: peers.changeEvents,
      securityEvents: peers.securityEvents,
      // Who belongs to which organization decides who reads its posts.
      memberships: { rolesOf: (userId) => peers.orgs.rolesOf(userId), roleIn: (unit, orgId, userId) => peers.orgs.roleIn(unit, orgId, userId) },
      // A post's files are attached, read and removed in the post's own units of work.
      files: {
        attach: (unit, post, fileIds, attachedBy) => peers.attachments.attach(unit, post, fileIds, attachedBy),
        of: (postIds, unit) => peers.attachments.of(postIds, unit),
        removeAllOfPost: (unit, postId) => peers.attachments.removeAllOfPost(unit, postId),
      },
      reactions: { summariesOf: (target, items, userId) => peers.reactions.summariesOf(target, items, userId) },
      // What `expand` returns inline: each record under its own slice's read rule.
      related: { authors: (ids) => peers.users.findMany(ids), orgs: (ids, caller) => peers.orgs.readableOf(ids, caller) },
      fields: peers.contentFields.of('posts'),
      options: { requireVerifiedEmail: config.requireVerifiedEmail, ...config.posts },
    })
    return { posts }
  },

  migrations: ['2026-11-21-04-posts', '2026-11-21-05-row-counts', '2026-11-21-07-live-row-indexes', '2026-11-23-01-trigram-indexes-without-pending-list', '2026-11-29-01-post-visibility', '2026-12-08-01-kept-post-counts', '2026-12-10-02-post-slugs', '2026-12-11-01-post-format', '2026-12-11-02-post-sort-indexes', '2026-12-12-01-post-fields', '2026-12-14-01-post-search', '2026-12-14-02-post-tags', '2026-12-14-03-post-revisions', '2026-12-15-01-post-trash', '2026-12-15-02-post-schedule'],
  routes: {
    v1: [routes(postsRoutes, { prefix: '/posts', list: 'array', attachments: false, trash: false, toPostRead, schemas: () => ({ read: PostRead, create: PostCreate, update: PostUpdate }) })],
    v2: [
      routes(postsRoutes, { prefix: '/posts', list: 'envelope', attachments: true, trash: true, toPostRead: toPostReadV2, schemas: (services) => postShapesV2(services.contentFields) }),
      routes(postsV2Routes),
      routes(postRevisionsRoutes),
      routes(postTrashRoutes),
    ],
  },
  // Scheduled posts go out within a minute of their time: the job sleeps until the next is due (a
  // commit that schedules one wakes it here; another process's job looks at least every 30 seconds).
  jobs: ({ services }) => [{ name: 'scheduled-posts', intervalMs: 1_000, idleIntervalMs: 30_000, run: () => services.posts.publishDue() }],
  // A trashed post whose time has passed is removed for good, once across processes.
  prune: (services) => services.posts.purgeExpiredTrash(),
}
