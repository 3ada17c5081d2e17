// What a user's archive holds, file by file, and the README that says so. Each source is another
// feature's, reached through its public face (wired in src/services.ts); each row is that
// feature's own read shape, so the archive never holds more than the API shows its owner: no
// password or token hash, no secret, no key.
import type { Readable } from 'node:stream'

import type { ExportAttachment, ExportContent, ExportSection } from './export-archive.js'

/** A stored file of the user's: its read shape, and its bytes. */
export interface ExportedFile {
  id: number
  name: string
  read: object
  open(): Promise<Readable | undefined>
}

export interface ExportSources {
  profile(userId: number): Promise<object>
  posts(userId: number): AsyncIterable<object>
  postRevisions(userId: number): AsyncIterable<object>
  comments(userId: number): AsyncIterable<object>
  reactions(userId: number): AsyncIterable<object>
  blocks(userId: number): AsyncIterable<object>
  reports(userId: number): AsyncIterable<object>
  files(userId: number): AsyncIterable<ExportedFile>
  sessions(userId: number): Promise<readonly object[]>
  devices(userId: number): Promise<readonly object[]>
  identities(userId: number): Promise<readonly object[]>
  passkeys(userId: number): Promise<readonly object[]>
  apiKeys(userId: number): Promise<readonly object[]>
  securityEvents(userId: number): AsyncIterable<object>
  organizations(userId: number): AsyncIterable<object>
}

async function* each<T>(rows: Promise<readonly T[]>): AsyncGenerator<T> {
  yield* await rows
}

/** The path of a stored file in the archive: its id, and its name with nothing a ZIP tool could read as a path. */
export function attachmentPath(file: { id: number; name: string }): string {
  const name = file.name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '').slice(0, 120)
  return `files/${file.id}-${name || 'file'}`
}

export function exportContentOf(sources: ExportSources, userId: number, generatedAt: Date): ExportContent {
  const sections: ExportSection[] = [
    { file: 'profile.json', describes: 'Your account: name, username, email, age, avatar, tier, language and when it was made.', object: () => sources.profile(userId) },
    { file: 'posts.json', describes: 'Every post you wrote, in every state: drafts, private, published, and deleted ones (deleted_at says when; purge_at, when one in your trash is removed for good).', rows: () => sources.posts(userId) },
    { file: 'post-revisions.json', describes: "The earlier versions of your posts that their edits replaced (the newest ones each post keeps), by post.", rows: () => sources.postRevisions(userId) },
    { file: 'comments.json', describes: 'Every comment and reply you wrote, hidden and deleted ones too (a deleted one without its words, which were erased).', rows: () => sources.comments(userId) },
    { file: 'reactions.json', describes: 'Your reactions to posts and comments: what you chose, on what, and when.', rows: () => sources.reactions(userId) },
    { file: 'blocks.json', describes: 'The people you blocked, and when.', rows: () => sources.blocks(userId) },
    { file: 'reports.json', describes: 'The reports you filed: what, why, and what came of them.', rows: () => sources.reports(userId) },
    { file: 'files.json', describes: 'The files you uploaded (name, type, size, the post each belongs to); their bytes are in files/, named <id>-<name>.', rows: () => filesOf(sources, userId) },
    { file: 'sessions.json', describes: 'The sessions signed in to your account now: when they began and were last used, from which address and browser.', rows: () => each(sources.sessions(userId)) },
    { file: 'devices.json', describes: 'The devices (browser, system, platform) your account was signed in from, first and last seen.', rows: () => each(sources.devices(userId)) },
    { file: 'identities.json', describes: 'The sign-in providers linked to your account (GitHub, OpenID Connect), with the address each gave.', rows: () => each(sources.identities(userId)) },
    { file: 'passkeys.json', describes: 'Your passkeys: their names and dates, never their keys.', rows: () => each(sources.passkeys(userId)) },
    { file: 'api-keys.json', describes: 'Your API keys: names, scopes and dates, never the keys.', rows: () => each(sources.apiKeys(userId)) },
    { file: 'security-events.json', describes: 'Your security log: sign-ins, changes to your ways in, and what support did with your account.', rows: () => sources.securityEvents(userId) },
    { file: 'organizations.json', describes: 'The organizations you belong to, and your role in each.', rows: () => sources.organizations(userId) },
  ]
  const readme = [
    'Your data',
    '=========',
    '',
    `Made ${generatedAt.toISOString()} for account ${userId}. Each .json file holds UTF-8 JSON, in the shapes`,
    'the API (version 2) gives them; times are ISO 8601 in UTC.',
    '',
    ...sections.map((section) => `${section.file}\n  ${section.describes}`),
    'files/',
    '  The bytes of each file listed in files.json.',
    '',
  ].join('\n')
  return {
    readme,
    sections,
    attachments: async function* (): AsyncGenerator<ExportAttachment> {
      for await (const file of sources.files(userId)) yield { path: attachmentPath(file), open: () => file.open() }
    },
  }
}

async function* filesOf(sources: ExportSources, userId: number): AsyncGenerator<object> {
  for await (const file of sources.files(userId)) yield file.read
}
