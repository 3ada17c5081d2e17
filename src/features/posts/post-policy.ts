// Who may read, list, edit, delete and publish a post: the one place that decides it
// (docs/api.md "Who reads a post"). Reading is a list of grants, each naming an audience, the
// visibilities and the statuses it opens; the same grants answer for one post here (`mayRead`,
// `mayList`) and compile to the WHERE fragment every listing, search, page and count runs
// (posts.repository.ts `listedBy`). Superusers pass every rule; the service records when one
// reads or changes a post no grant opens to them.
export const VISIBILITIES = ['public', 'unlisted', 'org', 'private'] as const
export type Visibility = (typeof VISIBILITIES)[number]
export const POST_STATUSES = ['draft', 'scheduled', 'published'] as const
export type PostStatus = (typeof POST_STATUSES)[number]

/** Who may comment on a post: signed-in readers, its organization's members (and its author), or nobody. */
export const COMMENT_SETTINGS = ['open', 'members', 'closed'] as const
export type CommentSetting = (typeof COMMENT_SETTINGS)[number]

export const isVisibility = (value: unknown): value is Visibility => (VISIBILITIES as readonly unknown[]).includes(value)
export const isPostStatus = (value: unknown): value is PostStatus => (POST_STATUSES as readonly unknown[]).includes(value)

/** A role in an organization, as the orgs feature names them. */
export type MemberRole = 'member' | 'admin' | 'owner'

/** Who asks: nobody (userId null), a user, or a user through an API key. */
export interface Reader {
  userId: number | null
  isSuperuser: boolean
  /** The organizations the reader belongs to, with their role in each. */
  orgRoles: ReadonlyMap<number, MemberRole>
  /** False for a read-only API key: it reads as its owner and changes nothing. */
  mayWrite: boolean
}

export const ANONYMOUS: Reader = { userId: null, isSuperuser: false, orgRoles: new Map(), mayWrite: false }

/** What the rules look at. */
export interface PostFacts {
  authorId: number
  visibility: Visibility
  status: PostStatus
  orgId: number | null
}

/** Who a grant opens a post to: anyone, its author, or the members (or admins and owners) of its organization. */
export type Audience = 'anyone' | 'author' | 'org_member' | 'org_admin'

export interface ReadGrant {
  audience: Audience
  visibility: readonly Visibility[]
  status: readonly PostStatus[]
  /** Whether the posts it opens also appear in lists, search, counts and the stream (unlisted ones do not, but to their author). */
  listed: boolean
}

/** A scheduled post is read as a draft until it goes out. */
const UNPUBLISHED: readonly PostStatus[] = ['draft', 'scheduled']

export const READ_GRANTS: readonly ReadGrant[] = [
  { audience: 'author', visibility: VISIBILITIES, status: POST_STATUSES, listed: true },
  { audience: 'anyone', visibility: ['public'], status: ['published'], listed: true },
  { audience: 'anyone', visibility: ['unlisted'], status: ['published'], listed: false },
  { audience: 'org_member', visibility: ['org'], status: ['published'], listed: true },
  // A draft (or scheduled post) of an organization's is open to its admins and owners, unless private.
  { audience: 'org_admin', visibility: ['public', 'org'], status: UNPUBLISHED, listed: true },
  { audience: 'org_admin', visibility: ['unlisted'], status: UNPUBLISHED, listed: false },
]

export const isAdminRole = (role: MemberRole | undefined) => role === 'admin' || role === 'owner'

function inAudience(reader: Reader, audience: Audience, post: PostFacts): boolean {
  switch (audience) {
    case 'anyone':
      return true
    case 'author':
      return reader.userId !== null && reader.userId === post.authorId
    case 'org_member':
      return post.orgId !== null && reader.orgRoles.has(post.orgId)
    case 'org_admin':
      return post.orgId !== null && isAdminRole(reader.orgRoles.get(post.orgId))
  }
}

const opens = (grant: ReadGrant, reader: Reader, post: PostFacts) =>
  grant.visibility.includes(post.visibility) && grant.status.includes(post.status) && inAudience(reader, grant.audience, post)

/** Whether a grant opens the post to the reader, superuser or not. */
export const readsAsUser = (reader: Reader, post: PostFacts) => READ_GRANTS.some((grant) => opens(grant, reader, post))

export const mayRead = (reader: Reader, post: PostFacts) => reader.isSuperuser || readsAsUser(reader, post)

/** Whether the post appears in the reader's lists, search results, counts and stream. */
export const mayList = (reader: Reader, post: PostFacts) => reader.isSuperuser || READ_GRANTS.some((grant) => grant.listed && opens(grant, reader, post))

/** Its author, its organization's admins and owners (unless private), and superusers; never a read-only key. */
export function mayEdit(reader: Reader, post: PostFacts): boolean {
  return reader.mayWrite && mayReadPrivateFields(reader, post)
}

export interface Permissions {
  read: boolean
  edit: boolean
  delete: boolean
  /** Whether the reader may change its status (publish a draft, or take a post back to draft). */
  publish: boolean
}

/** Delete and publish follow edit today; they are answered apart so a client need not assume it. */
export function permissionsOf(reader: Reader, post: PostFacts): Permissions {
  const edit = mayEdit(reader, post)
  return { read: mayRead(reader, post), edit, delete: edit, publish: edit }
}

/** The organizations where the reader's role opens an audience, for compiling the grants to SQL. */
export function orgsOf(reader: Reader, audience: 'org_member' | 'org_admin'): number[] {
  return [...reader.orgRoles].filter(([, role]) => audience === 'org_member' || isAdminRole(role)).map(([orgId]) => orgId)
}

/**
 * Who may comment on a post, or reply to its comments: a reader who may write, on a published
 * post, as its `comments` setting allows (`members`: its organization's members and its author).
 * Never on a draft; superusers too follow the setting.
 */
export function mayComment(reader: Reader, post: PostFacts & { comments: CommentSetting }): boolean {
  if (!reader.mayWrite || reader.userId === null || post.status !== 'published' || !mayRead(reader, post)) return false
  if (post.comments === 'open') return true
  if (post.comments === 'closed') return false
  return reader.userId === post.authorId || (post.orgId !== null && reader.orgRoles.has(post.orgId))
}

/** Who hides a post's comments (and sees them hidden, with the reason): its author, its organization's admins and owners, and superusers. */
export function mayModerateComments(reader: Reader, post: PostFacts): boolean {
  if (reader.isSuperuser) return true
  if (reader.userId !== null && reader.userId === post.authorId) return true
  return post.orgId !== null && isAdminRole(reader.orgRoles.get(post.orgId))
}

/**
 * Who reads a post's private custom fields: its editors (its author, its organization's admins and
 * owners unless the post is private, superusers), through a read-only key too. mayEdit adds the
 * key's right to write.
 */
export function mayReadPrivateFields(reader: Reader, post: PostFacts): boolean {
  if (reader.isSuperuser || (reader.userId !== null && reader.userId === post.authorId)) return true
  return post.visibility !== 'private' && post.orgId !== null && isAdminRole(reader.orgRoles.get(post.orgId))
}

/** The level of a post's custom fields a reader reads: server (superusers), private (mayReadPrivateFields) or public. */
export function fieldLevelOf(reader: Reader, post: PostFacts): 'public' | 'private' | 'server' {
  if (reader.isSuperuser) return 'server'
  return mayReadPrivateFields(reader, post) ? 'private' : 'public'
}

/** Whether only the reader's organization roles can tell their level of the post's fields. */
export const needsRolesForFields = (reader: Reader, post: PostFacts) =>
  !reader.isSuperuser && reader.userId !== post.authorId && post.orgId !== null && post.visibility !== 'private'
