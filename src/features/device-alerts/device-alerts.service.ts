// New-device sign-in alerts: every complete sign-in (a password, a mailed link or code, a
// provider, a passkey, a second factor) is checked against the devices the account was signed in
// to from. A browser that shows no device cookie of the account, with a browser family, operating
// system and platform never seen on it, gets its owner a mail: when, how, the network (not the
// address), the browser, and a "this wasn't me" link that ends that session and every other and
// mails a password reset. The account's first device is recorded without an alert (the sign-in
// after sign-up); each device alerts once. Nothing here can fail a sign-in.
import type { Logger } from 'pino'

import type { UnitOfWork } from '../../db/unit-of-work.js'
import { invalidToken } from '../../shared/errors.js'
import { mailedLink } from '../../shared/mailed-link.js'
import { toIsoString } from '../../shared/timestamps.js'
import type { AccountService } from '../account/index.js'
import type { AuthService, SignIn, SignInObserver } from '../auth/index.js'
import type { MailService } from '../mail/index.js'
import { duration, phrase } from '../mail/index.js'
import type { OneTimeSecrets, SecretKind } from '../one-time-secrets/index.js'
import type { ClientInfo, SecurityEventService } from '../security-events/index.js'
import type { UserService } from '../users/index.js'
import { networkOf } from './device.js'
import type { KnownDevicesRepository } from './known-devices.repository.js'
import type { Places } from './places.js'
import type { DeviceAlertSettings } from './settings.js'

/** How long the "this wasn't me" link works. */
const NOT_ME_DAYS = 7

/** What a sign-in method is called in the mail: a phrase of the recipient's language, or the provider's name. */
const METHOD_PHRASES = new Set(['password', 'email_link', 'email_code', 'passkey'])
const methodPhrase = (method: string) =>
  METHOD_PHRASES.has(method) ? phrase(`method.${method}`) : phrase('method.provider', { provider: method === 'github' ? 'GitHub' : method.replace(/^oidc:/, '') })

/** What DeviceAlertService is built from. */
export interface DeviceAlertServiceDependencies {
  devices: KnownDevicesRepository
  users: UserService
  auth: AuthService
  account: AccountService
  unitOfWork: UnitOfWork
  mail: MailService
  events: SecurityEventService
  secrets: OneTimeSecrets
  settings: DeviceAlertSettings & { publicUrl: string }
  logger: Logger
  /** The operator's GeoIP database (GEOIP_DATABASE), when there is one. */
  places?: Places
}

export class DeviceAlertService implements SignInObserver {
  private readonly notMeLinks: SecretKind<{ sessionId: string }>

  private readonly devices: KnownDevicesRepository
  private readonly users: UserService
  private readonly auth: AuthService
  private readonly account: AccountService
  private readonly unitOfWork: UnitOfWork
  private readonly mail: MailService
  private readonly events: SecurityEventService
  private readonly settings: DeviceAlertSettings & { publicUrl: string }
  private readonly logger: Logger
  /** The operator's GeoIP database (GEOIP_DATABASE), when there is one. */
  private readonly places?: Places

  constructor(dependencies: DeviceAlertServiceDependencies) {
    this.devices = dependencies.devices
    this.users = dependencies.users
    this.auth = dependencies.auth
    this.account = dependencies.account
    this.unitOfWork = dependencies.unitOfWork
    this.mail = dependencies.mail
    this.events = dependencies.events
    this.settings = dependencies.settings
    this.logger = dependencies.logger
    this.places = dependencies.places
    const secrets = dependencies.secrets
    this.notMeLinks = secrets.kind('not_me', { seconds: NOT_ME_DAYS * 86_400 })
  }

  /** The devices the account was signed in to from (browser, system, platform, first and last seen), for its data export. */
  async devicesOf(userId: number): Promise<{ browser: string; os: string; platform: string; first_seen_at: string; last_seen_at: string }[]> {
    const rows = await this.devices.devicesOf(userId)
    return rows.map((row) => ({ ...row, first_seen_at: toIsoString(row.first_seen_at), last_seen_at: toIsoString(row.last_seen_at) }))
  }

  /** Heard only with NEW_DEVICE_ALERTS on (src/services.ts registers it then). */
  async signedIn(signIn: SignIn): Promise<void> {
    try {
      await this.check(signIn)
    } catch (error) {
      this.logger.error({ err: error, userId: signIn.userId }, 'checking a sign-in for a new device failed')
    }
  }

  private async check({ userId, sessionId, method, client, knownDevice }: SignIn): Promise<void> {
    // The user-agent parser comes with the first sign-in the alerts look at, not at start.
    const { deviceOf } = await import('./user-agent.js')
    const device = deviceOf(client.userAgent)
    // A browser with the account's device cookie is never alerted about: only the others need
    // the user, read before the unit (on SQLite a read outside an open transaction waits for it).
    const user = knownDevice ? undefined : await this.users.find(userId)
    // Its place too, before the unit: the database is read (once) from disk, and no transaction waits for it.
    const place = user ? await this.places?.placeOf(client.ip, user.locale) : undefined
    await this.unitOfWork.run(async (unit) => {
      const devices = this.devices.in(unit)
      const isNew = await devices.recordDevice(userId, device)
      // The account's first device is the one it was made on: no alert.
      if (!isNew || !user || (await devices.countDevices(userId)) === 1) return
      const { token } = await this.notMeLinks.issue({ userId, data: { sessionId }, unit })
      // The network, and its city when the GeoIP database knows it ("203.0.113.0/24, near Berlin, Germany").
      const network = networkOf(client.ip)
      const values = {
        name: user.name,
        time: new Date(),
        method: methodPhrase(method),
        browser: phrase('device', { browser: device.browser, os: device.os, platform: device.platform }),
        network: place === undefined ? network : phrase('network.near', { network, place }),
        link: mailedLink(this.settings.notMeUrl, `${this.settings.publicUrl}/account/not-me`, token),
        valid_for: duration(NOT_ME_DAYS * 1440),
      }
      await this.mail.queue(unit, { template: 'new-device-sign-in', to: user.email, locale: user.locale, values })
      await this.events.record('new_device_alerted', userId, client, { unit, method, details: { browser: device.browser, os: device.os, platform: device.platform, network, ...(place === undefined ? {} : { place }) } })
    })
  }

  /**
   * "This wasn't me": ends the session the alert was about and every other one of the account, and
   * mails a password reset (limited as reset requests are). The link works once, for 7 days.
   */
  async notMe(token: string, client: ClientInfo): Promise<void> {
    const spent = await this.notMeLinks.spend(token)
    if (!spent?.userId) throw invalidToken()
    await this.auth.endSession(spent.data.sessionId)
    await this.auth.revokeSessionsOf(spent.userId, client)
    await this.events.record('new_device_reported', spent.userId, client)
    const user = await this.users.find(spent.userId)
    if (user) await this.account.requestPasswordReset(user.email, client)
  }
}
