// Making a test's session fresh through the API (POST /api/v2/reauthenticate), the way a frontend
// would: with the password or a proof the test gives, or, for an account with no other proof,
// with the code the service mails (read from the outbox the mail was queued in).
import { expect } from 'vitest'

import type { TestApp } from './app.js'
import { V2 } from './users.js'

/** Proves the session of `headers` again; `proof` as POST /reauthenticate takes it, or a mailed code when omitted. */
export async function reauthenticate(t: TestApp, headers: Record<string, string>, proof?: Record<string, unknown>): Promise<void> {
  const body = proof ?? { email_code: await mailedCode(t, headers) }
  const answer = await t.app.inject({ method: 'POST', url: `${V2}/reauthenticate`, headers, payload: body })
  expect(answer.statusCode, answer.body).toBe(200)
}

/** Asks for a reauthentication code and reads it from the mail queued for the caller. */
export async function mailedCode(t: TestApp, headers: Record<string, string>): Promise<string> {
  const asked = await t.app.inject({ method: 'POST', url: `${V2}/reauthenticate/email`, headers })
  expect(asked.statusCode, asked.body).toBe(202)
  const { email } = (await t.app.inject({ url: `${V2}/users/me`, headers })).json() as { email: string }
  const mail = await t.db.selectFrom('mail_outbox').select('text_body').where('recipient', '=', email).where('subject', 'like', '%confirm it is you%').orderBy('created_at', 'desc').executeTakeFirstOrThrow()
  return /\b(\d{6})\b/.exec(mail.text_body)![1]!
}
