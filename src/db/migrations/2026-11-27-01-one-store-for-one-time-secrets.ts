import type { Kysely } from 'kysely'

import { now, timestampType } from './dialect.js'

// Every single-use secret moves into one_time_secrets, the one store for them: mailed account
// links (user_tokens), sign-in mails (email_login_requests), provider sign-in flows, hand-off
// codes and link tickets, WebAuthn and second-factor challenges, stream tickets. The live rows
// move over (a link mailed before the upgrade still works after it); spent and expired ones go
// with their tables. A hand-off code's binding becomes the `binding` column ("pkce:" and its
// challenge, or "browser:" and the hash of the browser's cookie).

const PURPOSE_OF_CHALLENGE: Record<string, string> = {
  register: 'webauthn_register',
  sign_in: 'webauthn_sign_in',
  second_factor: 'webauthn_second_factor',
  reauthenticate: 'webauthn_reauthenticate',
}

interface MovedSecret {
  secret_hash: string
  purpose: string
  user_id: number | null
  code_hash: string | null
  binding: string | null
  attempts: number
  data: string | null
  expires_at: unknown
  created_at: unknown
}

/** The live rows of `table` (unspent, unexpired), as the store keeps them. */
async function liveRows(db: Kysely<any>, table: string, at: string): Promise<Record<string, any>[]> {
  return db.selectFrom(table).selectAll().where('used_at', 'is', null).where('expires_at', '>', at).execute()
}

async function moveSecrets(db: Kysely<any>, rows: MovedSecret[]): Promise<void> {
  for (let start = 0; start < rows.length; start += 200) {
    await db.insertInto('one_time_secrets').values(rows.slice(start, start + 200)).execute()
  }
}

const json = (value: unknown) => JSON.stringify(value)
const base = (row: Record<string, any>) => ({ expires_at: row.expires_at, created_at: row.created_at, code_hash: null, binding: null, attempts: 0 })

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('one_time_secrets').addColumn('binding', 'varchar(160)').execute()
  const at = new Date().toISOString()
  const moved: MovedSecret[] = []
  for (const row of await liveRows(db, 'user_tokens', at)) {
    moved.push({ ...base(row), secret_hash: row.token_hash, purpose: row.purpose, user_id: row.user_id, data: json({ email: row.email }) })
  }
  for (const row of await liveRows(db, 'email_login_requests', at)) {
    moved.push({ ...base(row), secret_hash: row.token_hash, purpose: 'email_login', user_id: row.user_id, code_hash: row.code_hash, attempts: Number(row.attempts), data: json({ email: row.email }) })
  }
  for (const row of await liveRows(db, 'sign_in_flows', at)) {
    const data = { browserHash: row.browser_hash, provider: row.provider, nonce: row.nonce, codeVerifier: row.code_verifier, redirectTo: row.redirect_to, handoffChallenge: row.handoff_challenge ?? null }
    moved.push({ ...base(row), secret_hash: row.state_hash, purpose: 'provider_flow', user_id: row.link_user_id ?? null, data: json(data) })
  }
  for (const row of await liveRows(db, 'sign_in_codes', at)) {
    const binding = row.code_challenge ? `pkce:${row.code_challenge}` : row.browser_hash ? `browser:${row.browser_hash}` : null
    // A code from before codes were bound matched nothing presented; it stays unspendable.
    if (binding === null) continue
    moved.push({ ...base(row), secret_hash: row.code_hash, purpose: 'sign_in_code', user_id: row.user_id, binding, data: json({ method: row.method }) })
  }
  for (const row of await liveRows(db, 'identity_link_tickets', at)) {
    moved.push({ ...base(row), secret_hash: row.ticket_hash, purpose: 'provider_link', user_id: row.user_id, data: json({ browserHash: row.browser_hash, provider: row.provider, redirectTo: row.redirect_to }) })
  }
  for (const row of await liveRows(db, 'webauthn_challenges', at)) {
    const purpose = PURPOSE_OF_CHALLENGE[row.purpose as string]
    if (purpose) moved.push({ ...base(row), secret_hash: row.challenge_hash, purpose, user_id: row.user_id ?? null, data: json({ mfaTokenHash: row.mfa_token_hash ?? null }) })
  }
  for (const row of await liveRows(db, 'mfa_challenges', at)) {
    moved.push({ ...base(row), secret_hash: row.token_hash, purpose: 'mfa', user_id: row.user_id, attempts: Number(row.attempts), data: json({ method: row.method }) })
  }
  for (const row of await liveRows(db, 'stream_tickets', at)) {
    moved.push({ ...base(row), secret_hash: row.ticket_hash, purpose: 'stream_ticket', user_id: row.user_id, data: json({ jti: row.jti, sessionId: row.session_id, tokenExpiresAt: Number(row.token_expires_at) }) })
  }
  await moveSecrets(db, moved)
  for (const table of ['user_tokens', 'email_login_requests', 'sign_in_codes', 'sign_in_flows', 'identity_link_tickets', 'webauthn_challenges', 'mfa_challenges', 'stream_tickets']) {
    await db.schema.dropTable(table).execute()
  }
}

/** The tables as they were (empty: secrets issued since live in one_time_secrets only, and are dropped with its new column). */
export async function down(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)
  const spendable = <T extends { addColumn: (...args: any[]) => T }>(table: T): T =>
    table
      .addColumn('expires_at', ts, (col: any) => col.notNull())
      .addColumn('used_at', ts)
      .addColumn('created_at', ts, (col: any) => col.notNull().defaultTo(now(db)))
  const userId = (col: any) => col.notNull().references('users.id').onDelete('cascade')
  await spendable(
    db.schema
      .createTable('user_tokens')
      .addColumn('token_hash', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('user_id', 'integer', userId)
      .addColumn('purpose', 'varchar(32)', (col) => col.notNull())
      .addColumn('email', 'varchar(254)', (col) => col.notNull()),
  ).execute()
  await spendable(
    db.schema
      .createTable('email_login_requests')
      .addColumn('token_hash', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('code_hash', 'varchar(64)', (col) => col.notNull())
      .addColumn('user_id', 'integer', userId)
      .addColumn('email', 'varchar(254)', (col) => col.notNull())
      .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0)),
  ).execute()
  await spendable(
    db.schema
      .createTable('sign_in_flows')
      .addColumn('state_hash', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('browser_hash', 'varchar(64)', (col) => col.notNull())
      .addColumn('provider', 'varchar(40)', (col) => col.notNull())
      .addColumn('nonce', 'varchar(64)', (col) => col.notNull())
      .addColumn('code_verifier', 'varchar(128)', (col) => col.notNull())
      .addColumn('redirect_to', 'varchar(2048)', (col) => col.notNull())
      .addColumn('link_user_id', 'integer')
      .addColumn('handoff_challenge', 'varchar(128)'),
  ).execute()
  await spendable(
    db.schema
      .createTable('sign_in_codes')
      .addColumn('code_hash', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('user_id', 'integer', userId)
      .addColumn('method', 'varchar(48)', (col) => col.notNull())
      .addColumn('code_challenge', 'varchar(128)')
      .addColumn('browser_hash', 'varchar(64)'),
  ).execute()
  await spendable(
    db.schema
      .createTable('identity_link_tickets')
      .addColumn('ticket_hash', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('browser_hash', 'varchar(64)', (col) => col.notNull())
      .addColumn('user_id', 'integer', userId)
      .addColumn('provider', 'varchar(40)', (col) => col.notNull())
      .addColumn('redirect_to', 'varchar(2048)', (col) => col.notNull()),
  ).execute()
  await spendable(
    db.schema
      .createTable('webauthn_challenges')
      .addColumn('challenge_hash', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('purpose', 'varchar(16)', (col) => col.notNull())
      .addColumn('user_id', 'integer', (col) => col.references('users.id').onDelete('cascade'))
      .addColumn('mfa_token_hash', 'varchar(64)'),
  ).execute()
  await spendable(
    db.schema
      .createTable('mfa_challenges')
      .addColumn('token_hash', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('user_id', 'integer', userId)
      .addColumn('method', 'varchar(32)', (col) => col.notNull())
      .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0)),
  ).execute()
  await spendable(
    db.schema
      .createTable('stream_tickets')
      .addColumn('ticket_hash', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('user_id', 'integer', userId)
      .addColumn('jti', 'varchar(64)', (col) => col.notNull())
      .addColumn('session_id', 'varchar(64)', (col) => col.notNull())
      .addColumn('token_expires_at', 'bigint', (col) => col.notNull()),
  ).execute()
  await db.deleteFrom('one_time_secrets').where('purpose', '<>', 'reauthentication_code').execute()
  await db.schema.alterTable('one_time_secrets').dropColumn('binding').execute()
}
