// The slice list: every feature of the service, in the order its routes register (which is the
// order of each version's OpenAPI document). A new feature is a folder under src/features and
// one line here (CONTRIBUTING.md, "Add a feature slice").
import type { ErrorCode } from '../shared/errors.js'
import { CORE_ERROR_CODES } from '../shared/errors.js'
import type { Scheduler } from '../shared/scheduler.js'
import type { Signals } from '../shared/signals.js'
import { abuseFeature } from './abuse/feature.js'
import { accountFeature } from './account/feature.js'
import { accountDeletionFeature } from './account-deletion/feature.js'
import { accountPagesFeature } from './account-pages/feature.js'
import { adminFeature } from './admin/feature.js'
import { apiKeysFeature } from './api-keys/feature.js'
import { authFeature } from './auth/feature.js'
import { avatarsFeature } from './avatars/feature.js'
import { blocksFeature } from './blocks/feature.js'
import { changeEventsFeature } from './change-events/feature.js'
import { commentsFeature } from './comments/feature.js'
import { contentFieldsFeature } from './content-fields/feature.js'
import { dataExportFeature } from './data-export/feature.js'
import { deviceAlertsFeature } from './device-alerts/feature.js'
import { emailLoginFeature } from './email-login/feature.js'
import { eventStreamsFeature } from './event-streams/feature.js'
import type { Feature } from './feature.js'
import { feedsFeature } from './feeds/feature.js'
import { filesFeature } from './files/feature.js'
import { identitiesFeature } from './identities/feature.js'
import { mailFeature } from './mail/feature.js'
import { mfaFeature } from './mfa/feature.js'
import { moderationFeature } from './moderation/feature.js'
import { notificationsFeature } from './notifications/feature.js'
import { oneTimeSecretsFeature } from './one-time-secrets/feature.js'
import { orgsFeature } from './orgs/feature.js'
import { passkeysFeature } from './passkeys/feature.js'
import { postsFeature } from './posts/feature.js'
import { rateLimitsFeature } from './rate-limits/feature.js'
import { reactionsFeature } from './reactions/feature.js'
import { reauthenticationFeature } from './reauthentication/feature.js'
import { recoveryFeature } from './recovery/feature.js'
import { reportsFeature } from './reports/feature.js'
import { searchFeature } from './search/feature.js'
import { securityEventsFeature } from './security-events/feature.js'
import { signInMethodsFeature } from './sign-in-methods/feature.js'
import { signUpFeature } from './sign-up/feature.js'
import { tiersFeature } from './tiers/feature.js'
import { usersFeature } from './users/feature.js'
import { webhooksFeature } from './webhooks/feature.js'

export type { BuildContext, Feature, FeatureContext, Services, StartContext } from './feature.js'
export { REQUEST_STAGES } from './feature.js'

export const FEATURES = [
  authFeature,
  accountFeature,
  accountDeletionFeature,
  dataExportFeature,
  deviceAlertsFeature,
  recoveryFeature,
  reauthenticationFeature,
  signUpFeature,
  emailLoginFeature,
  identitiesFeature,
  mfaFeature,
  passkeysFeature,
  contentFieldsFeature,
  usersFeature,
  postsFeature,
  commentsFeature,
  searchFeature,
  feedsFeature,
  reactionsFeature,
  blocksFeature,
  filesFeature,
  tiersFeature,
  rateLimitsFeature,
  apiKeysFeature,
  adminFeature,
  moderationFeature,
  reportsFeature,
  notificationsFeature,
  mailFeature,
  changeEventsFeature,
  webhooksFeature,
  eventStreamsFeature,
  oneTimeSecretsFeature,
  securityEventsFeature,
  signInMethodsFeature,
  avatarsFeature,
  orgsFeature,
  abuseFeature,
  accountPagesFeature,
] as const satisfies readonly Feature[]

/**
 * Every machine-readable `code` an error body can carry, with what it means: the general ones and
 * each slice's, in the slice list's order. docs/api.md and both OpenAPI documents list this table.
 */
export const ERROR_CODES: Readonly<Record<ErrorCode, string>> = Object.assign({}, CORE_ERROR_CODES, ...FEATURES.map((feature) => feature.errors ?? {}))

/** What one slice adds to app.services, and to the settings. */
type ProvidedBy<Slice> = Slice extends Feature<infer Provided> ? Provided : never
type SettingsOf<Slice> = Slice extends Feature<object, infer Settings> ? Settings : never
type Intersection<Union> = (Union extends unknown ? (part: Union) => void : never) extends (whole: infer All) => void ? All : never

/** What the composition builds around the slices (src/services.ts). */
export interface CoreServices {
  /** What the services report for monitoring (src/plugins/metrics.ts listens). */
  signals: Signals
  /** Every background job of the process (relays, streams' feed, cleanup, the limiter's flush); src/app.ts starts and stops them. */
  jobs: Scheduler
  /** Deletes what every slice keeps past its time (each slice's `prune`, in the slice list's order). */
  pruneExpiredState(): Promise<void>
  /** Resolves when every backing store (database, and Redis when configured) answers. */
  checkReady(): Promise<void>
}

type SliceServices = Intersection<ProvidedBy<(typeof FEATURES)[number]>>
type SliceSettings = Intersection<SettingsOf<(typeof FEATURES)[number]>>

declare module '../config.js' {
  // Each slice's settings, derived from the list above, beside the core's.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Config extends SliceSettings {}
}

declare module './feature.js' {
  // The slices' services, derived from the list above, and the core's.
  interface Services extends CoreServices, SliceServices {}
}
