// Mail as the rest of the service sees it: a rendered message, and something that sends one.

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

export type MailTemplateName = 'verify-email' | 'reset-password' | 'email-changed'
