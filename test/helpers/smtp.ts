// A real SMTP server inside the test process (smtp-server), collecting every delivered message
// parsed (mailparser). It can be stopped and started again on the same port, as an outage.
import type { AddressInfo } from 'node:net'

import type { FastifyInstance } from 'fastify'
import { simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import { expect } from 'vitest'

import type { TestApp } from './app.js'
import { createTestApp } from './app.js'
import { expectError } from './expect.js'
import { seedUser } from './users.js'
import { EVENT_DEADLINE_MS } from './wait.js'

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
      const deadline = Date.now() + EVENT_DEADLINE_MS
      while (Date.now() < deadline) {
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

/** The 6-digit code in a sign-in mail. */
export function codeIn(mail: DeliveredMail): string {
  const match = /enter this code where you asked: (\d{6})/.exec(mail.text)
  if (!match?.[1]) throw new Error(`no code in mail: ${mail.text}`)
  return match[1]
}

/**
 * Holds the app's lookup of an account by email, then asks `path` for a registered and an
 * unknown address: both must answer 202 while the lookup is still held, so neither answer can
 * tell them apart by its time; the registered one gets its mail once the lookup is let go.
 */
export async function expectAnswerBeforeLookup(t: TestApp, smtp: TestSmtpServer, path: string): Promise<void> {
  const user = await seedUser(t.app)
  const users = t.app.services.users
  const lookup = users.findActiveByEmail.bind(users)
  let release = () => {}
  const held = new Promise<void>((resolve) => (release = resolve))
  users.findActiveByEmail = async (email: string) => {
    await held
    return lookup(email)
  }
  try {
    for (const email of [user.email, `nobody_timing_${user.id}@example.com`]) {
      // The lookup is held: an answer that waited for it never comes, and the test times out.
      expect((await t.app.inject({ method: 'POST', url: path, payload: { email } })).statusCode).toBe(202)
    }
    release()
    expect(await smtp.waitFor(user.email)).toHaveLength(1)
  } finally {
    release()
    users.findActiveByEmail = lookup
  }
}

/**
 * With the budget set to 2 an hour: the third request from one address is refused (429 with
 * Retry-After) whatever the email, and the third for one email (in any case) whatever the address.
 */
export async function expectLimitedPerAddressAndEmail(app: FastifyInstance, path: string, network: string): Promise<void> {
  const ask = (email: string, host: number) => app.inject({ method: 'POST', url: path, payload: { email }, remoteAddress: `${network}.${host}` })
  expect((await ask('a@example.com', 1)).statusCode).toBe(202)
  expect((await ask('b@example.com', 1)).statusCode).toBe(202)
  const byAddress = await ask('c@example.com', 1)
  expectError(byAddress, 429, 'Too many requests')
  expect(Number(byAddress.headers['retry-after'])).toBeGreaterThan(0)
  expect((await ask('a@example.com', 2)).statusCode).toBe(202)
  expectError(await ask('A@example.com', 3), 429, 'Too many requests')
}
