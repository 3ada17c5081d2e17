// Mail is durable: queued in the database with the token it carries, sent by whichever process
// claims it, retried with backoff while SMTP is down, never sent twice, never lost on restart.
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp,TEST_SECRET_KEY } from '../../../test/helpers/app.js'
import type { TestSmtpServer } from '../../../test/helpers/smtp.js'
import { createAppWithSmtp } from '../../../test/helpers/smtp.js'
import { seedUser, V1 } from '../../../test/helpers/users.js'
import { drained, waitFor } from '../../../test/helpers/wait.js'
import { buildApp } from '../../app.js'
import { loadConfig } from '../../config.js'

describe('the mail outbox', () => {
  let smtp: TestSmtpServer
  let t: TestApp
  let close: () => Promise<void>
  beforeAll(async () => {
    const setup = await createAppWithSmtp()
    smtp = setup.smtp
    t = setup.t
    close = setup.close
  })
  afterAll(() => close())

  const requestReset = (app: TestApp['app'], email: string) => app.inject({ method: 'POST', url: `${V1}/password-reset`, payload: { email } })
  const outboxRows = () => t.db.selectFrom('mail_outbox').select(['recipient', 'status', 'attempts']).execute()

  it('keeps every message through an SMTP outage and a restart, and delivers each once when SMTP is back', async () => {
    await smtp.stop()
    const users = await Promise.all([1, 2, 3, 4].map(() => seedUser(t.app)))
    // The API keeps answering while mail cannot leave.
    for (const user of users) expect((await requestReset(t.app, user.email)).statusCode).toBe(202)
    const ours = async () => (await outboxRows()).filter((row) => users.some((user) => user.email === row.recipient))
    // Each message was tried once and is waiting for its retry.
    await waitFor(async () => (await ours()).filter((row) => Number(row.attempts) >= 1).length === 4)
    const waiting = await ours()
    expect(waiting).toHaveLength(4)
    expect(waiting.every((row) => row.status === 'pending' && Number(row.attempts) >= 1)).toBe(true)

    // A restart in the middle of the outage loses nothing: the next process picks the rows up.
    const restarted = await buildApp({ config: loadConfig(t.env), secretKey: TEST_SECRET_KEY, prepare: false })
    await restarted.ready()
    await smtp.start()
    for (const user of users) expect(await smtp.waitFor(user.email)).toHaveLength(1)
    await restarted.close()
    await drained(t.app, 'mail')
    for (const user of users) expect(smtp.messages.filter((message) => message.to === user.email)).toHaveLength(1)
    const settled = (await outboxRows()).filter((row) => users.some((user) => user.email === row.recipient))
    expect(settled.every((row) => row.status === 'sent')).toBe(true)
  })

  it('is shared by two processes without a message sent twice', async () => {
    const other = await buildApp({ config: loadConfig(t.env), secretKey: TEST_SECRET_KEY, prepare: false })
    await other.ready()
    try {
      await smtp.stop()
      const users = await Promise.all(Array.from({ length: 12 }, () => seedUser(t.app)))
      // Queued through both processes while SMTP is away, so both dispatchers hold due messages.
      await Promise.all(users.map((user, index) => requestReset(index % 2 === 0 ? t.app : other, user.email)))
      const tried = async () => (await outboxRows()).filter((row) => users.some((user) => user.email === row.recipient) && Number(row.attempts) >= 1)
      await waitFor(async () => (await tried()).length === users.length)
      await smtp.start()
      for (const user of users) await smtp.waitFor(user.email)
      await Promise.all([drained(t.app, 'mail'), other.services.jobs.job('mail')!.drain()])
      for (const user of users) expect(smtp.messages.filter((message) => message.to === user.email)).toHaveLength(1)
    } finally {
      await other.close()
    }
  })
})

describe('without SMTP_URL (development)', () => {
  it('writes each message as an .eml file under DATA_DIR/mail, using operator templates where given', async () => {
    const templates = await mkdtemp(path.join(tmpdir(), 'ups-templates-'))
    await writeFile(path.join(templates, 'reset-password.txt'), 'Subject: Custom reset for {{name}}\nGo here: {{link}}\n')
    const t = await createTestApp({ MAIL_TEMPLATES_DIR: templates })
    try {
      const user = await seedUser(t.app, { name: 'Eve Custom' })
      expect((await t.app.inject({ method: 'POST', url: `${V1}/password-reset`, payload: { email: user.email } })).statusCode).toBe(202)
      const directory = path.join(t.config.dataDir, 'mail')
      // The .txt is written after the .eml: once it is there, both are.
      await waitFor(async () => (await readdir(directory).catch(() => [])).some((file) => file.endsWith('.txt')))
      const files = (await readdir(directory)).sort()
      expect(files).toHaveLength(2)
      expect(files[0]).toMatch(/\.eml$/)
      expect(files[1]).toBe(files[0]!.replace(/\.eml$/, '.txt'))
      const eml = await readFile(path.join(directory, files[0]!), 'utf8')
      expect(eml).toContain('Subject: Custom reset for Eve Custom')
      expect(eml).toContain(`To: ${user.email}`)
      // The .txt holds the text as written: its link (and the token in it) is whole on one line, and it works.
      const text = await readFile(path.join(directory, files[1]!), 'utf8')
      expect(text).toMatch(new RegExp(`^To: ${user.email}\nSubject: Custom reset for Eve Custom\n\nGo here: http`))
      const token = decodeURIComponent(/token=([A-Za-z0-9_%-]+)/.exec(text)?.[1] ?? '')
      const reset = await t.app.inject({ method: 'POST', url: `${V1}/password-reset/confirm`, payload: { token, new_password: 'a brand new secret 9' } })
      expect(reset.statusCode, reset.body).toBe(200)
    } finally {
      await t.close()
    }
  })

  it('does not start with an operator template that is not a valid message, naming it', async () => {
    const templates = await mkdtemp(path.join(tmpdir(), 'ups-templates-'))
    await mkdir(path.join(templates, 'de'))
    await writeFile(path.join(templates, 'de', 'verify-email.txt'), 'Subject: Hallo {$name\nText\n')
    await expect(createTestApp({ MAIL_TEMPLATES_DIR: templates })).rejects.toThrow(/mail template de\/verify-email \(subject\) is not a valid message/)
  })
})
