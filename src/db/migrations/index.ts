// Every migration, by name. Names sort in the order they run; never rename or edit one that shipped.
import type { Migration } from 'kysely'

import * as abuseProtection from '../../features/abuse/migrations/2026-12-01-01-abuse-protection.js'
import * as accountDeletion from '../../features/account-deletion/migrations/2026-12-03-01-account-deletion.js'
import * as blocks from '../../features/blocks/migrations/2026-12-09-03-blocks.js'
import * as comments from '../../features/comments/migrations/2026-12-09-01-comments.js'
import * as commentThreadCounts from '../../features/comments/migrations/2026-12-10-01-comment-thread-counts.js'
import * as commentSearch from '../../features/comments/migrations/2026-12-16-01-comment-search.js'
import * as dataExports from '../../features/data-export/migrations/2026-12-05-01-data-exports.js'
import * as knownDevices from '../../features/device-alerts/migrations/2026-12-04-01-known-devices.js'
import * as files from '../../features/files/migrations/2026-11-30-01-files.js'
import * as moderation from '../../features/moderation/migrations/2026-12-02-01-moderation.js'
import * as notifications from '../../features/notifications/migrations/2026-12-09-05-notifications.js'
// A slice's own migrations live in its folder (src/features/<name>/migrations/).
import * as organizations from '../../features/orgs/migrations/2026-11-28-01-organizations.js'
import * as orgFields from '../../features/orgs/migrations/2026-12-13-02-org-fields.js'
import * as postVisibility from '../../features/posts/migrations/2026-11-29-01-post-visibility.js'
import * as keptPostCounts from '../../features/posts/migrations/2026-12-08-01-kept-post-counts.js'
import * as postSlugs from '../../features/posts/migrations/2026-12-10-02-post-slugs.js'
import * as postFormat from '../../features/posts/migrations/2026-12-11-01-post-format.js'
import * as postSortIndexes from '../../features/posts/migrations/2026-12-11-02-post-sort-indexes.js'
import * as postFields from '../../features/posts/migrations/2026-12-12-01-post-fields.js'
import * as postSearch from '../../features/posts/migrations/2026-12-14-01-post-search.js'
import * as postTags from '../../features/posts/migrations/2026-12-14-02-post-tags.js'
import * as postRevisions from '../../features/posts/migrations/2026-12-14-03-post-revisions.js'
import * as postTrash from '../../features/posts/migrations/2026-12-15-01-post-trash.js'
import * as postSchedule from '../../features/posts/migrations/2026-12-15-02-post-schedule.js'
import * as reactions from '../../features/reactions/migrations/2026-12-09-02-reactions.js'
import * as reports from '../../features/reports/migrations/2026-12-09-04-reports.js'
import * as userLocale from '../../features/users/migrations/2026-12-06-01-user-locale.js'
import * as serviceAccounts from '../../features/users/migrations/2026-12-07-01-service-accounts.js'
import * as userFields from '../../features/users/migrations/2026-12-13-01-user-fields.js'
import * as usersAndTiers from './2026-11-21-01-users-and-tiers.js'
import * as authState from './2026-11-21-02-auth-state.js'
import * as avatars from './2026-11-21-03-avatars.js'
import * as posts from './2026-11-21-04-posts.js'
import * as rowCounts from './2026-11-21-05-row-counts.js'
import * as userSearchIndex from './2026-11-21-06-user-search-index.js'
import * as liveRowIndexes from './2026-11-21-07-live-row-indexes.js'
import * as sessionsAndAvatarKeys from './2026-11-22-01-sessions-and-avatar-keys.js'
import * as accountLifecycle from './2026-11-22-02-account-lifecycle.js'
import * as rateLimitRulesAndApiKeys from './2026-11-22-03-rate-limit-rules-and-api-keys.js'
import * as adminOverview from './2026-11-22-04-admin-overview.js'
import * as trigramIndexesWithoutPendingList from './2026-11-23-01-trigram-indexes-without-pending-list.js'
import * as emailLogin from './2026-11-24-01-email-login.js'
import * as identities from './2026-11-24-02-identities.js'
import * as identityLinks from './2026-11-24-03-identity-links.js'
import * as secondFactors from './2026-11-24-04-second-factors.js'
import * as passkeys from './2026-11-24-05-passkeys.js'
import * as webhooks from './2026-11-24-06-webhooks.js'
import * as eventStreamTickets from './2026-11-24-07-event-stream-tickets.js'
import * as reauthenticationAndRecovery from './2026-11-26-01-reauthentication-and-recovery.js'
import * as signingKeys from './2026-11-26-02-signing-keys.js'
import * as oneStoreForOneTimeSecrets from './2026-11-27-01-one-store-for-one-time-secrets.js'

export const migrations: Record<string, Migration> = {
  '2026-11-21-01-users-and-tiers': usersAndTiers,
  '2026-11-21-02-auth-state': authState,
  '2026-11-21-03-avatars': avatars,
  '2026-11-21-04-posts': posts,
  '2026-11-21-05-row-counts': rowCounts,
  '2026-11-21-06-user-search-index': userSearchIndex,
  '2026-11-21-07-live-row-indexes': liveRowIndexes,
  '2026-11-22-01-sessions-and-avatar-keys': sessionsAndAvatarKeys,
  '2026-11-22-02-account-lifecycle': accountLifecycle,
  '2026-11-22-03-rate-limit-rules-and-api-keys': rateLimitRulesAndApiKeys,
  '2026-11-22-04-admin-overview': adminOverview,
  '2026-11-23-01-trigram-indexes-without-pending-list': trigramIndexesWithoutPendingList,
  '2026-11-24-01-email-login': emailLogin,
  '2026-11-24-02-identities': identities,
  '2026-11-24-03-identity-links': identityLinks,
  '2026-11-24-04-second-factors': secondFactors,
  '2026-11-24-05-passkeys': passkeys,
  '2026-11-24-06-webhooks': webhooks,
  '2026-11-24-07-event-stream-tickets': eventStreamTickets,
  '2026-11-26-01-reauthentication-and-recovery': reauthenticationAndRecovery,
  '2026-11-26-02-signing-keys': signingKeys,
  '2026-11-27-01-one-store-for-one-time-secrets': oneStoreForOneTimeSecrets,
  '2026-11-28-01-organizations': organizations,
  '2026-11-29-01-post-visibility': postVisibility,
  '2026-11-30-01-files': files,
  '2026-12-01-01-abuse-protection': abuseProtection,
  '2026-12-02-01-moderation': moderation,
  '2026-12-03-01-account-deletion': accountDeletion,
  '2026-12-04-01-known-devices': knownDevices,
  '2026-12-05-01-data-exports': dataExports,
  '2026-12-06-01-user-locale': userLocale,
  '2026-12-07-01-service-accounts': serviceAccounts,
  '2026-12-08-01-kept-post-counts': keptPostCounts,
  '2026-12-09-01-comments': comments,
  '2026-12-09-02-reactions': reactions,
  '2026-12-09-03-blocks': blocks,
  '2026-12-09-04-reports': reports,
  '2026-12-09-05-notifications': notifications,
  '2026-12-10-01-comment-thread-counts': commentThreadCounts,
  '2026-12-10-02-post-slugs': postSlugs,
  '2026-12-11-01-post-format': postFormat,
  '2026-12-11-02-post-sort-indexes': postSortIndexes,
  '2026-12-12-01-post-fields': postFields,
  '2026-12-13-01-user-fields': userFields,
  '2026-12-13-02-org-fields': orgFields,
  '2026-12-14-01-post-search': postSearch,
  '2026-12-14-02-post-tags': postTags,
  '2026-12-14-03-post-revisions': postRevisions,
  '2026-12-15-01-post-trash': postTrash,
  '2026-12-15-02-post-schedule': postSchedule,
  '2026-12-16-01-comment-search': commentSearch,
}
