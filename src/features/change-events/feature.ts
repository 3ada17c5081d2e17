// What changed (users, posts), written in the change's unit of work, for webhooks and streams.
import { toCommentEventRead } from '../comments/index.js'
import type { CollectionFields } from '../content-fields/index.js'
import type { Feature } from '../feature.js'
import { toFileRead } from '../files/index.js'
import { toMembershipRead, toOrgEventRead } from '../orgs/index.js'
import { toPostEventRead } from '../posts/index.js'
import { bannedUntilRead, toOwnUserReadV2, type User } from '../users/index.js'
import { changeEventsFunctions, changeEventsReadTargets } from './change-events.repository.js'
import { ChangeEventService } from './change-events.service.js'

interface ChangeEventsServices {
  /** What changed (users, posts, organizations, files), for webhooks and realtime streams. */
  changeEvents: ChangeEventService
}

/**
 * A user's change-event data: the v2 read shape as the user reads it (their events reach them and
 * superusers: the email and their public and private fields, never server ones), and
 * `banned_until` while a ban is in force (user.banned).
 */
const userEventShape = (fields: CollectionFields) => (user: User) => {
  const bannedUntil = bannedUntilRead(user)
  return { ...toOwnUserReadV2(user, fields), ...(bannedUntil === null ? {} : { banned_until: bannedUntil }) }
}

export const changeEventsFeature: Feature<ChangeEventsServices> = { name: 'change-events',
  needs: ['content-fields'],
  // Change events carry version 2's read shapes, a user's with the email.
  create: ({ config, bind, unitOfWork, peers }) => ({
    changeEvents: new ChangeEventService(bind(changeEventsFunctions, changeEventsReadTargets), unitOfWork, { user: userEventShape(peers.contentFields.of('users')), post: toPostEventRead, org: (org) => toOrgEventRead(org, peers.contentFields.of('orgs')), membership: toMembershipRead, file: toFileRead, comment: toCommentEventRead }, config.events),
  }),
 migrations: ['2026-11-24-06-webhooks'], prune: (services) => services.changeEvents.prune() }
