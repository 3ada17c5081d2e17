// What changed (users, posts), written in the change's unit of work, for webhooks and streams.
import { toCommentEventRead } from '../comments/index.js'
import type { Feature } from '../feature.js'
import { toFileRead } from '../files/index.js'
import { toMembershipRead, toOrgEventRead } from '../orgs/index.js'
import { toPostEventRead } from '../posts/index.js'
import { bannedUntilRead, toUserReadV2, type User } from '../users/index.js'
import { changeEventsFunctions } from './change-events.repository.js'
import { ChangeEventService } from './change-events.service.js'

interface ChangeEventsServices {
  /** What changed (users, posts, organizations, files), for webhooks and realtime streams. */
  changeEvents: ChangeEventService
}

/** A user's change-event data: the v2 read shape, and `banned_until` while a ban is in force (user.banned). */
const userEventShape = (user: User) => {
  const bannedUntil = bannedUntilRead(user)
  return { ...toUserReadV2(user, true), ...(bannedUntil === null ? {} : { banned_until: bannedUntil }) }
}

export const changeEventsFeature: Feature<ChangeEventsServices> = { name: 'change-events',
  // Change events carry version 2's read shapes; a superuser's view, so the email is always there.
  create: ({ config, bind, unitOfWork }) => ({
    changeEvents: new ChangeEventService(bind(changeEventsFunctions), unitOfWork, { user: userEventShape, post: toPostEventRead, org: toOrgEventRead, membership: toMembershipRead, file: toFileRead, comment: toCommentEventRead }, config.events),
  }),
 migrations: ['2026-11-24-06-webhooks'], prune: (services) => services.changeEvents.prune() }
