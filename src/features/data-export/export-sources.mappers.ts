// What a data export holds, each part in its own feature's read shape (never a hash or a secret),
// read through the other slices' services once every service exists.
import { everyItem } from '../../shared/paging.js'
import { toApiKeyRead } from '../api-keys/index.js'
import { toSessionRead } from '../auth/index.js'
import { toCommentEventRead } from '../comments/index.js'
import type { Services } from '../feature.js'
import { toFileRead } from '../files/index.js'
import { toIdentityRead } from '../identities/index.js'
import { toOrgRead } from '../orgs/index.js'
import { toPasskeyRead } from '../passkeys/index.js'
import { toPostReadV2 } from '../posts/index.js'
import { toOwnReportRead } from '../reports/index.js'
import { toSecurityEventRead } from '../security-events/index.js'
import { toOwnUserReadV2 } from '../users/index.js'
import type { ExportSources } from './export-content.js'

export function exportSourcesOf(peers: Services): ExportSources {
  return {
    profile: async (userId) => {
      const user = await peers.users.get(userId)
      return { ...toOwnUserReadV2(user, peers.contentFields.of('users')), age: user.age, updated_at: user.updatedAt }
    },
    posts: async function* (userId) {
      for await (const post of peers.posts.everyPostOf(userId)) yield { ...toPostReadV2(post), deleted_at: post.deletedAt, purge_at: post.purgeAt }
    },
    postRevisions: (userId) => peers.posts.everyRevisionOf(userId),
    comments: async function* (userId) {
      for await (const comment of peers.comments.everyCommentOf(userId)) yield toCommentEventRead(comment)
    },
    reactions: (userId) => peers.reactions.everyReactionOf(userId),
    blocks: (userId) => peers.blocks.everyBlockOf(userId),
    reports: async function* (userId) {
      for await (const report of peers.reports.everyReportOf(userId)) yield toOwnReportRead(report)
    },
    files: async function* (userId) {
      for await (const { view, open } of peers.files.everyFileOf(userId)) {
        const { sha256: _sha256, ...read } = toFileRead(view)
        yield { id: view.id, name: view.name, read, open }
      }
    },
    sessions: async (userId) => (await peers.auth.liveSessionsOf(userId)).map(toSessionRead),
    devices: (userId) => peers.deviceAlerts.devicesOf(userId),
    identities: async (userId) => (await peers.identities.identitiesOf(userId)).map(toIdentityRead),
    passkeys: async (userId) => (await peers.passkeys.list(userId)).map(toPasskeyRead),
    apiKeys: async (userId) =>
      (await peers.apiKeys.list({ id: userId, isSuperuser: false })).map((key) => {
        const { prefix: _prefix, ...read } = toApiKeyRead(key)
        return read
      }),
    securityEvents: async function* (userId) {
      for await (const event of everyItem((request) => peers.securityEvents.listOwn({ id: userId, isSuperuser: false }, {}, request))) yield toSecurityEventRead(event)
    },
    organizations: async function* (userId) {
      for await (const org of everyItem((request) => peers.orgs.listMine({ id: userId, isSuperuser: false }, request))) yield toOrgRead(org)
    },
  }
}
