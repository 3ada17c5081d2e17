// A real SMTP server inside the test process (smtp-server), collecting every delivered message
// parsed (mailparser). It can be stopped and started again on the same port, as an outage.
import type { AddressInfo } from 'node:net'

import { simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import { expect } from 'vitest'

import type { TestApp } from './app.js'
import { createTestApp } from './app.js'
import { seedUser } from './users.js'

export interface DeliveredMail {
  to: string
  subject: string
  text: string
  html: string
}

export interface TestSmtpServer {
  url: string
  messages: DeliveredMail[]
  /** Messages to `to`, once at least `count` arrived (waits up to ~10 s). */
  waitFor(to: string, count?: number): Promise<DeliveredMail[]>
  stop(): Promise<void>
  start(): Promise<void>
  close(): Promise<void>
}

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const messages: DeliveredMail[] = []
  let port = 0
  let server: SMTPServer | undefined

  const listen = async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, _session, callback) {
        simpleParser(stream)
          .then((parsed) => {
            const to = Array.isArray(parsed.to) ? parsed.to[0]?.text : parsed.to?.text
            messages.push({ to: to ?? '', subject: parsed.subject ?? '', text: parsed.text ?? '', html: typeof parsed.html === 'string' ? parsed.html : '' })
            callback()
          })
          .catch(callback)
      },
    })
    await new Promise<void>((resolve) => server?.listen(port, '127.0.0.1', resolve))
    port = (server.server.address() as AddressInfo).port
  }
  const stop = () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))

  await listen()
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(to, count = 1) {
      for (let attempt = 0; attempt < 200; attempt++) {
        const found = messages.filter((message) => message.to === to)
        if (found.length >= count) return found
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      throw new Error(`no ${count} mail(s) to ${to} arrived; got ${messages.map((message) => message.to).join(', ')}`)
    },
    stop,
    start: listen,
    close: stop,
  }
}

/** The token in a mailed link (…?token=…). */
export function tokenIn(mail: DeliveredMail): string {
  const match = /token=([A-Za-z0-9_%-]+)/.exec(mail.text)
  if (!match?.[1]) throw new Error(`no token in mail: ${mail.text}`)
  return decodeURIComponent(match[1])
}

/** The app on a fresh database, mailing through a test SMTP server; retries are quick and reset and sign-in mails unlimited. */
export async function createAppWithSmtp(env: Record<string, string> = {}): Promise<{ smtp: TestSmtpServer; t: TestApp; close(): Promise<void> }> {
  const smtp = await startSmtpServer()
  const t = await createTestApp({ SMTP_URL: smtp.url, MAIL_RETRY_BASE_MS: '50', PASSWORD_RESET_RATE_LIMIT: '1000', EMAIL_LOGIN_RATE_LIMIT: '1000', ...env })
  return {
    smtp,
    t,
    async close() {
      await t.close()
      await smtp.close()
    },
  }
}

/**
 * Makes the app's lookup of an account by email slow on purpose (a second), then asks `path` for
 * a registered and an unknown address: both must answer 202 in well under that second (the
 * answer does not wait for the lookup), and the registered one still gets its mail.
 */
export async function expectAnswerBeforeLookup(t: TestApp, smtp: TestSmtpServer, path: string): Promise<void> {
  const user = await seedUser(t.app)
  const users = t.app.services.users
  const lookup = users.findActiveByEmail.bind(users)
  users.findActiveByEmail = async (email: string) => {
    await new Promise((resolve) => setTimeout(resolve, 1000))
    return lookup(email)
  }
  try {
    for (const email of [user.email, `nobody_timing_${user.id}@example.com`]) {
      const started = performance.now()
      const answer = await t.app.inject({ method: 'POST', url: path, payload: { email } })
      expect(answer.statusCode).toBe(202)
      expect(performance.now() - started).toBeLessThan(500)
    }
    expect(await smtp.waitFor(user.email)).toHaveLength(1)
  } finally {
    users.findActiveByEmail = lookup
  }
}
