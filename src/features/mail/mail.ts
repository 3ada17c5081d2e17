// Mail as the rest of the service sees it: a rendered message, and something that sends one.
import { toIsoString } from '../../shared/timestamps.js'
import type { OutboxListRow } from './outbox.table.js'

export interface MailMessage {
  to: string
  subject: string
  text: string
  html: string
}

export interface MailTransport {
  /** Sends one message; throws when it could not (the outbox then retries it later). */
  send(message: MailMessage): Promise<void>
  close(): void
}

export type MailTemplateName = 'verify-email' | 'reset-password' | 'email-changed' | 'email-login' | 'reauthentication-code' | 'ways-in-ended' | 'org-invitation' | 'impersonation-started' | 'account-deletion-scheduled' | 'new-device-sign-in' | 'data-export-ready' | 'report-resolved' | 'new-reply'

export const MAIL_PREVIEW_OFF = 'Mail preview is off (MAIL_PREVIEW)'

/** A message in the outbox, as the development mail page shows it. */
export interface QueuedMail {
  id: string
  to: string
  subject: string
  status: 'pending' | 'sent' | 'failed'
  attempts: number
  lastError: string | null
  createdAt: string
  sentAt: string | null
  text: string
  /** Every link in the text, in order: the verification, reset and undo links a tester follows. */
  links: string[]
}

const LINK = /https?:\/\/[^\s<>"]+/g

export function toQueuedMail(row: OutboxListRow): QueuedMail {
  return {
    id: row.id,
    to: row.recipient,
    subject: row.subject,
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: toIsoString(row.created_at),
    sentAt: row.sent_at === null ? null : toIsoString(row.sent_at),
    text: row.text_body,
    links: [...new Set(row.text_body.match(LINK) ?? [])],
  }
}
