// How mail leaves: SMTP (nodemailer) when SMTP_URL is set; otherwise, outside production, each
// message becomes an .eml file under DATA_DIR/mail (and one log line), with a .txt beside it
// holding the plain text as written: the .eml's quoted-printable breaks long links (and the
// tokens in them) across lines. `log` only logs. nodemailer is loaded with the first message,
// not as the service starts (it is a large part of what a start would otherwise parse).
import { randomUUID } from 'node:crypto'
import { mkdir, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'

import type { Transporter, TransportOptions } from 'nodemailer'

import type { Logger } from '../../logger.js'
import type { MailMessage, MailTransport } from './mail.js'

export type MailTransportKind = 'smtp' | 'file' | 'log'

export interface MailTransportOptions {
  kind: MailTransportKind
  smtpUrl: string | undefined
  from: string
  dataDir: string
  logger: Logger
}

const SMTP_TIMEOUT_MS = 10_000

/** smtp://user:pass@host:587 (STARTTLS when offered) or smtps://… (TLS from the start), with bounded waits. */
function smtpOptions(smtpUrl: string) {
  const url = new URL(smtpUrl)
  const secure = url.protocol === 'smtps:'
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  }
}

/** A nodemailer transporter made when the first message needs it; closing before then closes nothing. */
function transporterOnFirstUse(options: TransportOptions | Record<string, unknown>) {
  let made: Promise<Transporter> | undefined
  let transporter: Transporter | undefined
  return {
    get: () =>
      (made ??= import('nodemailer').then(({ default: nodemailer }) => (transporter = nodemailer.createTransport(options)))),
    close: () => transporter?.close(),
  }
}

export function createMailTransport(options: MailTransportOptions): MailTransport {
  const { kind, from, logger } = options
  if (kind === 'smtp') {
    const smtp = transporterOnFirstUse(smtpOptions(options.smtpUrl ?? ''))
    return {
      async send(message) {
        await (await smtp.get()).sendMail({ from, ...message })
      },
      close: smtp.close,
    }
  }
  if (kind === 'file') {
    const directory = path.join(options.dataDir, 'mail')
    const builder = transporterOnFirstUse({ streamTransport: true, buffer: true, newline: 'unix' })
    return {
      async send(message: MailMessage) {
        const built = await (await builder.get()).sendMail({ from, ...message })
        await mkdir(directory, { recursive: true, mode: 0o700 })
        const name = path.join(directory, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}`)
        const file = `${name}.eml`
        await writeWhole(file, built.message as Buffer)
        await writeWhole(`${name}.txt`, `To: ${message.to}\nSubject: ${message.subject}\n\n${message.text}`)
        logger.info({ to: message.to, subject: message.subject, file }, 'mail written to a file (no SMTP_URL)')
      },
      close: builder.close,
    }
  }
  return {
    async send(message) {
      // MAIL_TRANSPORT=log: nothing is delivered; the line names the message, never its body (it holds a token).
      logger.info({ to: message.to, subject: message.subject }, 'mail not sent (MAIL_TRANSPORT=log)')
    },
    close: () => {},
  }
}

/**
 * Writes a file that appears whole or not at all: under a name no reader lists, then renamed.
 * A reader of the directory (the mail preview, a test waiting for a message) saw an empty .txt
 * when it listed the file between its creation and its write.
 */
async function writeWhole(file: string, data: string | Buffer): Promise<void> {
  const partial = `${file}.partial`
  await writeFile(partial, data, { mode: 0o600 })
  await rename(partial, file)
}
