// What a user is told of, and how: for now, a mail when someone replies to their post or their
// comment, which they can turn off (`reply_mail`). It is written in the reply's own unit of work
// (the comments slice calls `replied`), so a reply that commits has its mails queued and one that
// rolls back never does; never from someone the recipient blocked, at most once an hour per post.
import type { Unit } from '../../db/unit-of-work.js'
import { nowIso } from '../../shared/timestamps.js'
import type { MailService } from '../mail/index.js'
import type { NotificationsRepository } from './notifications.repository.js'

/** At most one reply mail per recipient and post in this long. */
export const REPLY_MAIL_INTERVAL_MS = 3_600_000
const EXCERPT = 280

export interface NotificationSettings {
  replyMail: boolean
}

export interface Reply {
  postId: number
  postTitle: string
  replierId: number
  text: string
  /** Who to tell: the post's author, the answered comment's author (the comments slice decides who may still read the post). */
  recipients: readonly number[]
}

export interface NotificationServiceDependencies {
  notifications: NotificationsRepository
  mail: Pick<MailService, 'queue'>
  now?: () => number
}

export class NotificationService {
  constructor(private readonly dependencies: NotificationServiceDependencies) {}

  settingsOf(userId: number): Promise<NotificationSettings> {
    return this.dependencies.notifications.settingsOf(userId)
  }

  async change(userId: number, settings: NotificationSettings): Promise<NotificationSettings> {
    await this.dependencies.notifications.saveSettings(userId, settings)
    return settings
  }

  /** Queues the reply's mails in its unit. */
  async replied(unit: Unit, reply: Reply): Promise<void> {
    const recipients = [...new Set(reply.recipients)].filter((id) => id !== reply.replierId)
    if (recipients.length === 0) return
    const { notifications, mail } = this.dependencies
    const now = this.dependencies.now?.() ?? Date.now()
    const inUnit = notifications.in(unit)
    const found = await inUnit.replyRecipients(recipients, reply.replierId, reply.postId, new Date(now - REPLY_MAIL_INTERVAL_MS).toISOString())
    if (found.length === 0) return
    const who = (await inUnit.nameOf(reply.replierId)) ?? ''
    const excerpt = reply.text.length > EXCERPT ? `${reply.text.slice(0, EXCERPT - 1)}…` : reply.text
    for (const recipient of found) {
      await inUnit.markMailed(recipient.id, reply.postId, nowIso())
      await mail.queue(unit, { template: 'new-reply', to: recipient.email, locale: recipient.locale, values: { name: recipient.name, who, title: reply.postTitle, text: excerpt } })
    }
  }
}
