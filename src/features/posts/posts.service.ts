// Post rules: who reads, lists, edits, deletes and publishes a post is the post policy's
// (post-policy.ts); this service asks it on every path. A post the caller may not read answers
// 404 on get, update and delete alike. A logged-in caller writes as themselves; only a superuser
// removes permanently. No HTTP here. Each change is recorded in the change log in its own unit of
// work (its change event commits with it), and so is a superuser's change of a post no rule
// opened to them.
import type { Unit, UnitOfWork } from '../../db/unit-of-work.js'
import { assertSuperuser, DomainError, forbidden, NOT_FOUND, notAuthenticated, RuleViolation } from '../../shared/errors.js'
import { canonicalLocale } from '../../shared/locale.js'
import type { Paged, PageRequest, RowWindow } from '../../shared/paging.js'
import { everyRowAfter, fetchPaged, offsetOf } from '../../shared/paging.js'
import type { RunResult } from '../../shared/scheduler.js'
import { untilDue } from '../../shared/scheduler.js'
import { hitWindow, pageOfHits, type SearchAfter, type SearchPageRequest } from '../../shared/search-page.js'
import { searchQueryOf } from '../../shared/search-text.js'
import { nowIso, toIsoString } from '../../shared/timestamps.js'
import type { CollectionFields, FieldLevel } from '../content-fields/index.js'
import { fieldsColumn, mergedFields, narrowsByIndex, readFilter, UNINDEXED_FILTER_MAX_ROWS } from '../content-fields/index.js'
import type { FileView } from '../files/index.js'
import type { Reactable, ReactionSummary, ReactionTarget } from '../reactions/index.js'
import type { ClientInfo, SecurityEventService } from '../security-events/index.js'
import { narrowedByIndex, POST_FILTER, postFilterTooBroad } from './filter-language.js'
import { htmlOf } from './markdown.js'
import type { Post, PostChanges, PostFilter, PostInput } from './post.js'
import { toPost } from './post.js'
import type { PostChangeLog, PostEventType } from './post-change-log.js'
import type { MemberRole, Permissions, PostFacts, PostStatus, Reader, Visibility } from './post-policy.js'
import { ANONYMOUS, fieldLevelOf, mayEdit, mayRead, needsRolesForFields, permissionsOf, readsAsUser } from './post-policy.js'
import type { PostRelated, PostRelation, PostRelations } from './post-relations.js'
import type { PostRevision } from './post-revision.js'
import { changesRestoring, revises, revisionOf, toRevision, toRevisionRead } from './post-revision.js'
import type { PostRevisionsRepository } from './post-revisions.repository.js'
import { scheduleOf } from './post-schedule.js'
import type { PostScheduleRepository } from './post-schedule.repository.js'
import type { PostSearchRepository } from './post-search.repository.js'
import type { SortedAfter, SortKey } from './post-sort.js'
import { sortKeysOf, sortTooBroad, UNINDEXED_SORT_MAX_POSTS } from './post-sort.js'
import type { PostTrashRepository, TrashedPostRow } from './post-trash.repository.js'
import type { PostRowChanges, PostsRepository } from './posts.repository.js'
import { numberedSlugs, randomSlugs, slugFromTitle, slugScope } from './slugs.js'
import { normalizedTag, normalizedTags } from './tags.js'

export const POST_NOT_FOUND = 'Post not found'
export const EMAIL_NOT_VERIFIED = 'Email not verified'
export const NOT_A_MEMBER = 'Only members of an organization may put posts in it'
export const ORG_ID_REQUIRED = 'A post with org visibility needs an org_id'

/** Who asks: a signed-in user, perhaps through an API key that may only read. */
export interface PostCaller {
  id: number
  isSuperuser: boolean
  /** With REQUIRE_VERIFIED_EMAIL, only verified users (and superusers) may write. */
  isVerified?: boolean
  /** An API key without the `write` scope. */
  readOnly?: boolean
}

/** What the posts feature needs to know of organizations (the orgs feature answers, src/services.ts). */
/** The files feature's part in a post's changes (src/services.ts wires it). */
export interface PostFiles {
  attach(unit: Unit, post: { id: number; authorId: number }, fileIds: readonly number[], attachedBy: number): Promise<void>
  of(postIds: readonly number[], unit?: Unit): Promise<Map<number, FileView[]>>
  removeAllOfPost(unit: Unit, postId: number): Promise<void>
}

export interface PostMemberships {
  /** The user's organizations with their role in each. */
  rolesOf(userId: number): Promise<ReadonlyMap<number, MemberRole>>
  /** The user's role in one organization; inside a unit, held until it ends (a change decides on it). */
  roleIn(unit: Unit | undefined, orgId: number, userId: number): Promise<MemberRole | undefined>
}

function postNotFound(): never {
  throw new DomainError('not_found', POST_NOT_FOUND, { code: 'post_not_found' })
}

const notAMember = () => new DomainError('forbidden', NOT_A_MEMBER, { code: 'not_a_member' })
const slugTaken = () => new DomainError('conflict', 'Another post of the same owner has this slug', { code: 'post_slug_taken' })
/** An author's posts read per page for their data export. */
const EXPORT_PAGE = 500

/** The level a writer writes fields at: a superuser every one, anyone else who may edit the post up to private. */
const writerLevel = (writer: PostCaller): FieldLevel => (writer.isSuperuser ? 'server' : 'private')

const toRowChanges = ({ mediaUrl, orgId, attachments: _attachments, slug: _slug, fields: _fields, tags, publishAt: _publishAt, status: _status, ...rest }: PostChanges): PostRowChanges => ({
  ...(tags === undefined ? {} : { tags: JSON.stringify(tags) }),
  ...rest,
  ...(mediaUrl === undefined ? {} : { media_url: mediaUrl }),
  ...(orgId === undefined ? {} : { org_id: orgId }),
})

/** The `html` of an edit that changes a post's text or format: rendered again from the text it will have. */
function rendered(post: Post, changes: PostChanges): Pick<PostRowChanges, 'html'> {
  if (changes.text === undefined && (changes.format === undefined || changes.format === post.format)) return {}
  return { html: htmlOf(changes.format ?? post.format, changes.text ?? post.text) }
}

/** A sorted page: by its number, or after the previous page's last post. */
export interface SortedPageRequest {
  page: number
  limit: number
  after?: SortedAfter
}

/** The posts a reader may list, narrowed by a checked filter: a search of another slice's records on them holds to it (scopeOf). */
export interface PostScope {
  reader: Reader
  filter: PostFilter
}

/** A post the search found: its relevance in this search, and its title and best passage with the matches marked (search-text.ts MARK_START, MARK_END). */
export interface PostHit {
  post: Post
  rank: number
  snippet: { title: string; text: string }
}

/** A well-formed language tag, canonical; else 422 on `language`. */
function languageOrRefuse(tag: string): string {
  const canonical = canonicalLocale(tag)
  if (canonical === undefined) throw new RuleViolation('language', 'Must be a BCP 47 language tag, such as en, de-AT or pt-BR', 'value_error.locale')
  return canonical
}

const revisionNotFound = () => new DomainError('not_found', NOT_FOUND, { code: 'revision_not_found' })

/** What PostService is built from. */
export interface PostServiceDependencies {
  posts: PostsRepository
  /** The search index, kept in each write's unit (post-search.repository.ts). */
  searchIndex: PostSearchRepository
  unitOfWork: UnitOfWork
  changes: PostChangeLog
  memberships: PostMemberships
  securityEvents: SecurityEventService
  files: PostFiles
  /** The reactions slice's summaries of a page of posts, for its reader. */
  reactions: { summariesOf(target: ReactionTarget, items: readonly Reactable[], userId: number | null): Promise<Map<number, ReactionSummary>> }
  /** The users and organizations posts name, for `expand`; none are read without it. */
  related?: PostRelated
  /** The posts' declared custom fields (CONTENT_SCHEMA): who reads which, and what a write may name. */
  fields: CollectionFields
  /** The versions a post's changes replaced (post-revisions.repository.ts). */
  revisions: PostRevisionsRepository
  /** The posts deleted through version 2, until they are removed for good (post-trash.repository.ts). */
  trash: PostTrashRepository
  /** The scheduled posts due to go out (post-schedule.repository.ts). */
  schedule: PostScheduleRepository
  /** Whether a scheduled post's author may still publish: live and not banned (the users slice answers). */
  authors: { mayPublish(authorId: number): Promise<boolean> }
  /** Told after a commit that scheduled a post: the publishing job wakes for it. */
  onScheduled?: () => void
  options?: PostServiceOptions
}

export interface PostServiceOptions {
  requireVerifiedEmail: boolean
  revisionsKept: number
  /** POST_TRASH_DAYS. */
  trashDays: number
}

/** A post in its author's trash: when it was deleted, until when it may come back, and who deleted it. */
export interface TrashedPost {
  post: Post
  deletedAt: string
  purgeAt: string
  trashedBy: number | null
}

const DAY_MS = 86_400_000
/** The scheduled posts one run of the publishing job sends out, each in its own unit. */
const PUBLISH_BATCH = 100
/** The trashed posts one cleanup run removes for good, each in its own unit. */
const PURGE_BATCH = 100
const trashedByAnother = () => new DomainError('forbidden', 'Someone else deleted this post: only a superuser may restore it', { code: 'post_trashed_by_another' })

export class PostService {
  private readonly posts: PostsRepository
  private readonly searchIndex: PostSearchRepository
  private readonly unitOfWork: UnitOfWork
  private readonly changes: PostChangeLog
  private readonly memberships: PostMemberships
  private readonly securityEvents: SecurityEventService
  private readonly files: PostFiles
  private readonly reactions: PostServiceDependencies['reactions']
  private readonly related: PostRelated | undefined
  private readonly fields: CollectionFields
  private readonly options: PostServiceOptions
  private readonly revisions: PostRevisionsRepository
  private readonly trash: PostTrashRepository
  private readonly schedule: PostScheduleRepository
  private readonly authors: PostServiceDependencies['authors']
  private readonly onScheduled: () => void

  constructor(dependencies: PostServiceDependencies) {
    this.posts = dependencies.posts
    this.searchIndex = dependencies.searchIndex
    this.unitOfWork = dependencies.unitOfWork
    this.changes = dependencies.changes
    this.memberships = dependencies.memberships
    this.securityEvents = dependencies.securityEvents
    this.files = dependencies.files
    this.reactions = dependencies.reactions
    this.related = dependencies.related
    this.fields = dependencies.fields
    this.options = dependencies.options ?? { requireVerifiedEmail: false, revisionsKept: 50, trashDays: 30 }
    this.revisions = dependencies.revisions
    this.trash = dependencies.trash
    this.schedule = dependencies.schedule
    this.authors = dependencies.authors
    this.onScheduled = dependencies.onScheduled ?? (() => {})
  }

  /** An author's posts disappear with them, in the transaction of the deletion. */
  async hideAllOf(unit: Unit, authorId: number): Promise<void> {
    await this.posts.in(unit).hidePostsOf(authorId)
  }

  /** Only the posts hidden with the author (at `deletedAt` or later) come back; older deletions stay. */
  async restoreHiddenWith(unit: Unit, authorId: number, deletedAt: string | null): Promise<void> {
    if (deletedAt !== null) await this.posts.in(unit).unhidePostsOf(authorId, deletedAt)
  }

  /**
   * An account deleted with ACCOUNT_DELETION_CONTENT=anonymize: its published posts that others
   * may read become `toAuthorId`'s; its drafts, private and deleted posts go with it.
   */
  async handOverPublishedOf(unit: Unit, fromAuthorId: number, toAuthorId: number): Promise<void> {
    await this.posts.in(unit).handOverPublishedPostsOf(fromAuthorId, toAuthorId)
  }

  /** The live posts among `ids` as they are now (what the policy looks at); those gone are absent. */
  async liveFactsOf(ids: readonly number[]): Promise<Map<number, PostFacts>> {
    if (ids.length === 0) return new Map()
    const rows = await this.posts.findLivePostFacts(ids)
    return new Map(rows.map((row) => [row.id, { authorId: row.author_id, visibility: row.visibility as Visibility, status: row.status as PostStatus, orgId: row.org_id }]))
  }

  /** The live posts among `ids`, read in the unit (an event written there carries them). */
  async livePostsIn(unit: Unit, ids: readonly number[]): Promise<Post[]> {
    if (ids.length === 0) return []
    return (await this.posts.in(unit).findLivePosts(ids)).map((row) => this.withFields(toPost(row), 'public'))
  }

  /** Every post of an author's in every state, oldest first, with when it was deleted and when the trash removes it (null while it is not): their data export, a page in memory at a time. */
  async *everyPostOf(authorId: number): AsyncGenerator<Post & { deletedAt: string | null; purgeAt: string | null }> {
    const rows = everyRowAfter((after: number, limit) => this.posts.postsOfAuthorAfter(authorId, after, limit), (row) => row.id, 0, EXPORT_PAGE)
    // Their own export: what they read of their posts as their author (not the server's fields).
    for await (const row of rows) {
      const deletedAt = row.deleted_at === null ? null : toIsoString(row.deleted_at)
      yield { ...this.withFields(toPost(row), 'private'), deletedAt, purgeAt: row.trashed_until === null ? null : toIsoString(row.trashed_until) }
    }
  }

  /** Every kept revision of the author's posts, oldest first (their data export), in the API's shape. */
  async *everyRevisionOf(authorId: number): AsyncGenerator<object> {
    const rows = everyRowAfter((after: number, limit) => this.revisions.revisionsOfAuthorAfter(authorId, after, limit), (row) => Number(row.id), 0, EXPORT_PAGE)
    for await (const row of rows) yield toRevisionRead(toRevision(row))
  }

  /** The reader a caller is, with every organization they belong to (what a list compiles). */
  async readerOf(caller: PostCaller | null): Promise<Reader> {
    if (!caller) return ANONYMOUS
    return { userId: caller.id, isSuperuser: caller.isSuperuser, orgRoles: await this.memberships.rolesOf(caller.id), mayWrite: caller.readOnly !== true }
  }

  /** A post the caller may read; 404 otherwise. */
  async get(caller: PostCaller | null, id: number, client: ClientInfo): Promise<Post> {
    return (await this.readable(caller, id, client)).post
  }

  /**
   * The post and the caller as its reader (their role in its organization known), 404 when the
   * policy does not let them read it: what another slice decides on for something of the post's
   * (its comments, its reactions).
   */
  readFor(caller: PostCaller | null, id: number, client: ClientInfo): Promise<{ post: Post; reader: Reader }> {
    return this.readable(caller, id, client)
  }

  /** Whether the caller may read the post (its files follow the same rule). */
  async canRead(caller: PostCaller | null, id: number, client: ClientInfo): Promise<boolean> {
    try {
      await this.readable(caller, id, client)
      return true
    } catch (error) {
      if (error instanceof DomainError && error.code === 'post_not_found') return false
      throw error
    }
  }

  /**
   * The posts as version 2 shows them to the caller: with their attachments (unless read already)
   * and their reactions, each read in one query side by side, or not at all when no post has any.
   */
  async withDetails(posts: readonly Post[], caller: PostCaller | null): Promise<Post[]> {
    const withFiles = posts.filter((post) => post.attachments === undefined && post.attachmentCount > 0).map((post) => post.id)
    const [attached, reactions, reader] = await Promise.all([
      withFiles.length > 0 ? this.files.of(withFiles) : new Map<number, FileView[]>(),
      this.reactions.summariesOf('post', posts, caller?.id ?? null),
      this.fieldReaderOf(posts, caller),
    ])
    return posts.map((post) => ({ ...post, attachments: post.attachments ?? attached.get(post.id) ?? [], reactions: reactions.get(post.id), fields: this.fields.view(post.storedFields, fieldLevelOf(reader, post)) }))
  }

  /**
   * The caller as a reader of the posts' fields: their roles are read (one query) only when a post
   * of an organization has fields above public that the caller's roles could open.
   */
  private async fieldReaderOf(posts: readonly Post[], caller: PostCaller | null): Promise<Reader> {
    if (caller === null) return ANONYMOUS
    const reader = { userId: caller.id, isSuperuser: caller.isSuperuser, orgRoles: new Map<number, MemberRole>(), mayWrite: caller.readOnly !== true }
    if (!this.fields.hasNonPublic || !posts.some((post) => needsRolesForFields(reader, post))) return reader
    return { ...reader, orgRoles: await this.memberships.rolesOf(caller.id) }
  }

  /** The list's narrowing with its `filter` read and checked for the caller (400 invalid_filter), before anything is read. */
  private checkedFilter(asked: PostFilter, caller: PostCaller | null): PostFilter {
    // A tag is compared as it is stored.
    const filter = asked.tag === undefined ? asked : { ...asked, tag: normalizedTag(asked.tag) }
    if (filter.filterText === undefined) return filter
    return { ...filter, expression: readFilter(filter.filterText, POST_FILTER, this.fields, { signedIn: caller !== null, isSuperuser: caller?.isSuperuser === true }) }
  }

  /**
   * 422 filter_too_broad for a filter no index narrows, on a list that holds more posts than such a
   * filter may check: the list's size counted as its newest-first page's total is (kept counts
   * where nothing narrows it), before the filter makes anyone's request read every post.
   */
  private async assertFilterFits(reader: Reader, filter: PostFilter): Promise<void> {
    if (filter.expression === undefined || narrowsByIndex(filter.expression, POST_FILTER)) return
    const size = await this.posts.countPosts(reader, { authorId: filter.authorId, orgId: filter.orgId })
    if (size > UNINDEXED_FILTER_MAX_ROWS) throw postFilterTooBroad()
  }

  /** The post with its fields as a reader at `level` sees them. */
  private withFields(post: Post, level: FieldLevel): Post {
    return { ...post, fields: this.fields.view(post.storedFields, level) }
  }

  /**
   * The records a page of posts names that the caller asked for, each under its own slice's rule:
   * one query per relation for the whole page, none for a relation no post of it has.
   */
  async relationsOf(posts: readonly Post[], caller: PostCaller | null, relations: ReadonlySet<PostRelation>): Promise<PostRelations> {
    const related = this.related
    const authorIds = relations.has('author') ? [...new Set(posts.map((post) => post.authorId))] : []
    const orgIds = relations.has('org') ? [...new Set(posts.flatMap((post) => (post.orgId === null ? [] : [post.orgId])))] : []
    const [authors, orgs] = await Promise.all([
      related && authorIds.length > 0 ? related.authors(authorIds) : [],
      // Nobody anonymous reads an organization.
      related && caller && orgIds.length > 0 ? this.readerOf(caller).then((reader) => related.orgs(orgIds, { isSuperuser: reader.isSuperuser, roles: reader.orgRoles })) : [],
    ])
    return { authors: new Map(authors.map((author) => [author.id, author])), orgs: new Map(orgs.map((org) => [org.id, org])) }
  }

  /** What the caller may do with a post they may read; 404 for one they may not. */
  async permissions(caller: PostCaller | null, id: number, client: ClientInfo): Promise<Permissions> {
    const { post, reader } = await this.readable(caller, id, client)
    return permissionsOf(reader, post)
  }

  /** The keys of a `sort` value: documented columns, and the declared fields the caller may read (422 otherwise). */
  sortKeys(sort: string, caller: PostCaller | null): SortKey[] {
    return sortKeysOf(sort, this.fields, { signedIn: caller !== null, isSuperuser: caller?.isSuperuser === true })
  }

  /** Newest first: the posts the caller may list (post-policy.ts), narrowed by `filter`. */
  async list(caller: PostCaller | null, asked: PostFilter, request: PageRequest, client: ClientInfo): Promise<Paged<Post>> {
    const filter = this.checkedFilter(asked, caller)
    const reader = await this.readerOf(caller)
    await this.assertFilterFits(reader, filter)
    const rows = (window: RowWindow) => this.posts.listPosts(reader, filter, window)
    const rowsWithTotal = (window: RowWindow) => this.posts.listPostsWithTotal(reader, filter, window)
    const page = await fetchPaged(request, { rows, rowsWithTotal, count: () => this.posts.countPosts(reader, filter), keyOf: (row) => row.id }, toPost)
    await this.recordSuperuserListing(reader, caller, page.items, client)
    return page
  }

  /**
   * The posts the caller may list (list's rule and narrowing) in the order of `keys`: a page from
   * its number, or after the last post of the previous one; with the total, and where the next
   * page continues when more follow (the page's last post's id and values of the keys, as stored).
   */
  async listSorted(caller: PostCaller | null, asked: PostFilter, keys: readonly SortKey[], request: SortedPageRequest, client: ClientInfo): Promise<{ items: Post[]; total: number; next: SortedAfter | undefined }> {
    const filter = this.checkedFilter(asked, caller)
    const reader = await this.readerOf(caller)
    await this.assertFilterFits(reader, filter)
    const { page, limit, after } = request
    const window = { offset: after === undefined ? (page - 1) * limit : 0, limit: limit + 1, after }
    // A sort read from an index walks it; any other first makes sure the list is small enough to
    // sort. In a list an index narrows (an author, an organization, author_id = … in the filter)
    // up to that many posts are counted first on PostgreSQL: a few are sorted rather than found by
    // walking the sort's index, which reads every post when the reader may see none of them
    // (listPostsSorted).
    const walks = this.posts.sortWalksIndex(keys)
    let counted = walks ? undefined : await this.posts.countPosts(reader, filter)
    if (counted !== undefined && counted > UNINDEXED_SORT_MAX_POSTS) throw sortTooBroad()
    if (walks && narrowedByIndex(filter) && this.posts.sortsNarrowedLists()) {
      const upTo = await this.posts.countPostsUpTo(reader, filter, UNINDEXED_SORT_MAX_POSTS + 1)
      if (upTo <= UNINDEXED_SORT_MAX_POSTS) counted = upTo
    }
    const [rows, total] = await Promise.all([this.posts.listPostsSorted(reader, filter, keys, window, counted !== undefined), counted ?? this.posts.countPosts(reader, filter)])
    const shown = rows.slice(0, limit)
    const items = shown.map((sorted) => toPost(sorted.row))
    await this.recordSuperuserListing(reader, caller, items, client)
    const last = rows.length > limit ? shown.at(-1) : undefined
    return { items, total, next: last && { values: last.keys, id: Number(last.row.id) } }
  }

  /**
   * The posts the caller may list, narrowed by `asked` as a list narrows them (a filter checked,
   * 422 where it is too broad): what another slice's query holds to through the posts slice's
   * `listsPost` (comment search searches the comments of these posts only).
   */
  async scopeOf(caller: PostCaller | null, asked: PostFilter): Promise<PostScope> {
    const filter = this.checkedFilter(asked, caller)
    const reader = await this.readerOf(caller)
    await this.assertFilterFits(reader, filter)
    return { reader, filter }
  }

  /** A superuser's security event when what a page showed them came from posts they could not read as a user (as a list of posts records it). */
  async recordListingIn(scope: PostScope, caller: PostCaller | null, postIds: readonly number[], client: ClientInfo): Promise<void> {
    if (!scope.reader.isSuperuser || postIds.length === 0) return
    const rows = await this.posts.findLivePosts([...new Set(postIds)])
    await this.recordSuperuserListing(scope.reader, caller, rows.map(toPost), client)
  }

  /**
   * Ranked search (docs/api.md "Search"): the posts the caller may list, narrowed by `filter`, that
   * match the query, best first (ties newest first): a page by its number or after the previous
   * page's last hit, the total for this caller, and each hit's title and best passage with the
   * matched words marked.
   */
  async search(caller: PostCaller | null, text: string, asked: PostFilter, request: SearchPageRequest, client: ClientInfo): Promise<{ hits: PostHit[]; total: number; next: SearchAfter | undefined }> {
    const query = searchQueryOf(text)
    const { reader, filter } = await this.scopeOf(caller, asked)
    const stemmed = await this.searchIndex.stemQuery(query)
    const window = hitWindow(request)
    const [found, total] = await Promise.all([this.searchIndex.searchPosts(reader, filter, query, stemmed, window), this.searchIndex.countSearchHits(reader, filter, query, stemmed)])
    const { shown, next } = pageOfHits(found, request.limit)
    const ids = shown.map((hit) => hit.id)
    if (ids.length === 0) return { hits: [], total, next: undefined }
    const [rows, snippets] = await Promise.all([this.posts.findLivePosts(ids), this.searchIndex.snippetsOf(ids, query, stemmed)])
    const byId = new Map(rows.map((row) => [Number(row.id), toPost(row)]))
    const hits = shown.flatMap((hit) => {
      const post = byId.get(hit.id)
      const snippet = snippets.get(hit.id)
      return post && snippet ? [{ post, rank: hit.rank, snippet }] : []
    })
    await this.recordSuperuserListing(reader, caller, hits.map((hit) => hit.post), client)
    return { hits, total, next }
  }

  /**
   * Writes every post's index entry again (`npm run rebuild-search-index`), a batch per unit of
   * work, while the service runs: after the rules of search-text.ts changed. How many posts it wrote.
   */
  async rebuildSearchIndex(batch = 500): Promise<number> {
    let written = 0
    for (let after = 0; ; ) {
      const count = await this.unitOfWork.run(async (unit) => {
        const rows = await this.searchIndex.in(unit).postsToIndex(after, batch)
        for (const row of rows) await this.searchIndex.in(unit).indexPostText(row)
        after = Number(rows.at(-1)?.id ?? after)
        return rows.length
      })
      written += count
      if (count < batch) return written
    }
  }

  /** The versions of a post its changes replaced, newest first, for those who may edit it (404 for those who may not read it, 403 for those who may only read it). */
  async revisionsOf(caller: PostCaller, id: number, request: Pick<PageRequest, 'page' | 'limit'>, client: ClientInfo): Promise<Paged<PostRevision>> {
    await this.editableNow(caller, id, client)
    const [rows, total] = await Promise.all([this.revisions.listRevisions(id, offsetOf(request), request.limit), this.revisions.countRevisions(id)])
    return { items: rows.map(toRevision), total }
  }

  /**
   * One earlier version of a post, for those who may edit the post (as revisionsOf, 403 for one who
   * may only read it); 404 revision_not_found when there is no such revision or the caller may not
   * read its post, alike, so an id tells nobody else that it exists.
   */
  async revision(caller: PostCaller, revisionId: number, client: ClientInfo): Promise<PostRevision> {
    const row = await this.revisions.findRevision(revisionId)
    if (!row) throw revisionNotFound()
    try {
      await this.editableNow(caller, Number(row.post_id), client)
    } catch (error) {
      if (error instanceof DomainError && error.code === 'post_not_found') throw revisionNotFound()
      throw error
    }
    return toRevision(row)
  }

  /** Makes the post that version again: an edit (its rules, its event), which keeps the version it replaces. */
  async restoreRevision(caller: PostCaller, revisionId: number, client: ClientInfo): Promise<Post> {
    const revision = await this.revision(caller, revisionId, client)
    return this.update(caller, revision.postId, changesRestoring(revision), client)
  }

  /** Keeps the post as it is when the change replaces its title, text, format, visibility, tags or attachments. */
  private async keepRevision(unit: Unit, post: Post, changes: PostChanges, editorId: number): Promise<void> {
    const touches = [changes.title, changes.text, changes.format, changes.visibility, changes.tags, changes.attachments].some((change) => change !== undefined)
    if (!touches) return
    const attachments = post.attachmentCount === 0 ? [] : ((await this.files.of([post.id], unit)).get(post.id) ?? []).map((file) => file.id)
    if (revises(post, changes, attachments)) await this.revisions.in(unit).insertRevision(revisionOf(post, attachments, editorId), this.options.revisionsKept)
  }

  /** The post, read now, when the caller may edit it: 404 if they may not read it, 403 if they may only read it. */
  private async editableNow(caller: PostCaller, id: number, client: ClientInfo): Promise<void> {
    const { post, reader } = await this.readable(caller, id, client)
    if (!mayEdit(reader, post)) throw forbidden()
  }

  /** Who a name is as an owner of posts: the live user with that username, the organization with that slug (either, both or neither). */
  async ownerNamed(name: string): Promise<{ authorId?: number; orgId?: number }> {
    const scopes = await this.posts.slugScopesOf(name)
    const idIn = (prefix: string) => {
      const scope = scopes.find((each) => each.startsWith(prefix))
      return scope === undefined ? undefined : Number(scope.slice(prefix.length))
    }
    return { authorId: idIn('u:'), orgId: idIn('o:') }
  }

  /** The tags of the most posts the caller may list, with how many of those posts have each. */
  async popularTags(caller: PostCaller | null, limit: number): Promise<{ tag: string; count: number }[]> {
    return this.posts.popularTags(await this.readerOf(caller), limit)
  }

  /** The author is always the caller; a client cannot write as someone else. */
  async create(author: PostCaller, input: PostInput): Promise<Post> {
    this.assertMayWrite(author)
    const visibility = input.visibility ?? 'public'
    const orgId = input.orgId ?? null
    if (visibility === 'org' && orgId === null) throw orgIdRequired()
    const format = input.format ?? 'plain'
    const tags = normalizedTags(input.tags ?? [])
    const schedule = scheduleOf(null, input)
    const level = writerLevel(author)
    this.fields.assertWritable(input.fields, level)
    const fields = fieldsColumn(mergedFields({}, this.fields.normalized(input.fields)))
    // Rendered before the unit: nothing else waits on it (on SQLite the unit holds the write lock).
    const html = htmlOf(format, input.text)
    const post = await this.unitOfWork.run(async (unit) => {
      if (orgId !== null && (await this.memberships.roleIn(unit, orgId, author.id)) === undefined) throw notAMember()
      const scope = slugScope(orgId, author.id)
      const slug = await this.slugIn(unit, scope, input.slug ?? null, slugFromTitle(input.title), null)
      const row = await this.posts.in(unit).insertPost({
        slug,
        slug_scope: scope,
        author_id: author.id,
        title: input.title,
        text: input.text,
        format,
        html,
        media_url: input.mediaUrl ?? null,
        visibility,
        status: schedule.status,
        org_id: orgId,
        comments: input.comments ?? 'open',
        fields,
        language: typeof input.language === 'string' ? languageOrRefuse(input.language) : null,
        tags: JSON.stringify(tags),
      })
      if (!row) return undefined
      await this.searchIndex.in(unit).indexPostText(row)
      if (tags.length > 0) await this.posts.in(unit).replacePostTags(row.id, tags)
      if (input.attachments?.length) await this.files.attach(unit, { id: row.id, authorId: author.id }, input.attachments, author.id)
      // A scheduled post's time is written apart: the prepared insert of every other post stays as it is.
      const written = schedule.publishAt === null ? row : await this.posts.in(unit).updatePost(row.id, { publish_at: schedule.publishAt })
      if (!written) return undefined
      return this.changed(unit, schedule.publishAt === null ? ['post.created'] : ['post.created', 'post.scheduled'], await this.attachedIn(unit, toPost(written), Boolean(input.attachments?.length)))
    })
    if (schedule.publishAt !== null) this.onScheduled()
    // The caller's account was deleted while the request was on its way: their token is done.
    if (!post) throw notAuthenticated()
    return this.withFields(post, level)
  }

  /**
   * Edits a post the caller may edit, deciding on the post and the roles as they are inside the
   * unit. Moving it between organizations takes membership of both (the caller's) and of the one
   * it goes to (its author's). Publishing a draft sets `published_at` the first time.
   */
  async update(caller: PostCaller, id: number, changes: PostChanges, client: ClientInfo): Promise<Post> {
    this.assertMayWrite(caller)
    // An editor reads private fields; only a superuser writes server ones.
    const level = writerLevel(caller)
    this.fields.assertWritable(changes.fields, level)
    if (typeof changes.language === 'string') changes = { ...changes, language: languageOrRefuse(changes.language) }
    if (changes.tags !== undefined) changes = { ...changes, tags: normalizedTags(changes.tags) }
    let scheduled = false
    const updated = await this.unitOfWork.run(async (unit) => {
      const { post, reader } = await this.editable(unit, caller, id, changes.orgId)
      const visibility = changes.visibility ?? post.visibility
      const orgId = changes.orgId === undefined ? post.orgId : changes.orgId
      // A post whose organization was deleted keeps `org` visibility until its author changes it.
      const placing = changes.visibility !== undefined || changes.orgId !== undefined
      if (placing && visibility === 'org' && orgId === null) throw orgIdRequired()
      const schedule = scheduleOf(post, changes)
      const reschedules = schedule.status !== post.status || schedule.publishAt !== post.publishAt
      if (reschedules && !permissionsOf(reader, post).publish) throw forbidden()
      if (orgId !== post.orgId) await this.assertMayMove(unit, reader, post, orgId)
      await this.keepRevision(unit, post, changes, caller.id)
      const publishes = post.status !== 'published' && schedule.status === 'published'
      scheduled = schedule.status === 'scheduled' && schedule.publishAt !== post.publishAt
      // The post's row is held (findPostForChange), so the merge sees every write before it.
      const fields = changes.fields === undefined ? {} : { fields: fieldsColumn(mergedFields(post.storedFields, this.fields.normalized(changes.fields))) }
      const statusColumns = reschedules ? { status: schedule.status, publish_at: schedule.publishAt } : {}
      const rowChanges = { ...toRowChanges(changes), ...statusColumns, ...rendered(post, changes), ...fields, ...(publishes && post.publishedAt === null ? { published_at: nowIso() } : {}), ...(await this.readdressed(unit, post, orgId, changes.slug)) }
      const row = await this.posts.in(unit).updatePost(id, rowChanges)
      if (!row) postNotFound()
      if (changes.title !== undefined || changes.text !== undefined || changes.language !== undefined) await this.searchIndex.in(unit).indexPostText(row)
      if (changes.tags !== undefined) await this.posts.in(unit).replacePostTags(id, changes.tags)
      if (changes.attachments !== undefined) await this.files.attach(unit, { id, authorId: post.authorId }, changes.attachments, caller.id)
      await this.auditChange(unit, reader, post, client)
      const events: PostEventType[] = publishes ? ['post.updated', 'post.published'] : scheduled ? ['post.updated', 'post.scheduled'] : ['post.updated']
      return this.changed(unit, events, await this.attachedIn(unit, toPost(row), changes.attachments !== undefined))
    })
    if (scheduled) this.onScheduled()
    return this.withFields(updated, level)
  }

  async softDelete(caller: PostCaller, id: number, client: ClientInfo): Promise<void> {
    await this.unitOfWork.run(async (unit) => {
      const { post, reader } = await this.editable(unit, caller, id, undefined)
      if (!(await this.posts.in(unit).softDeletePost(id))) postNotFound()
      await this.auditChange(unit, reader, post, client)
      await this.changed(unit, ['post.deleted'], post)
    })
  }

  async deletePermanently(caller: PostCaller, id: number, client: ClientInfo): Promise<void> {
    assertSuperuser(caller)
    await this.unitOfWork.run(async (unit) => {
      const post = await this.removed(unit, id)
      await this.auditChange(unit, await this.readerFor(unit, caller, [post.orgId]), post, client)
    })
  }

  /**
   * Version 2's delete (docs/api.md "Trash"): whoever may edit the post deletes it into its
   * author's trash for POST_TRASH_DAYS. Gone from every read as a soft delete is; `post.deleted`
   * then `post.trashed`.
   */
  async moveToTrash(caller: PostCaller, id: number, client: ClientInfo): Promise<void> {
    await this.unitOfWork.run(async (unit) => {
      const { post, reader } = await this.editable(unit, caller, id, undefined)
      const at = Date.now()
      const until = new Date(at + this.options.trashDays * DAY_MS).toISOString()
      if (!(await this.trash.in(unit).trashPost(id, caller.id, new Date(at).toISOString(), until))) postNotFound()
      await this.auditChange(unit, reader, post, client)
      await this.changed(unit, ['post.deleted', 'post.trashed'], post)
    })
  }

  /**
   * Version 2's `?permanent=true`: its author removes a post for good, live or from their trash,
   * and so does a superuser; whoever else may edit it gets 403, anyone else 404.
   */
  async deleteForGood(caller: PostCaller, id: number, client: ClientInfo): Promise<void> {
    await this.unitOfWork.run(async (unit) => {
      const trashed = await this.trash.in(unit).findTrashedPost(id)
      if (trashed) this.assertOwnsTrashed(caller, trashed)
      else {
        const { post } = await this.editable(unit, caller, id, undefined)
        if (!caller.isSuperuser && post.authorId !== caller.id) throw forbidden()
      }
      const post = await this.removed(unit, id)
      await this.auditChange(unit, await this.readerFor(unit, caller, [post.orgId]), post, client)
    })
  }

  /** The caller's trash, most recently deleted first (the posts they wrote, whoever deleted them). */
  async trashOf(caller: PostCaller, request: Pick<PageRequest, 'page' | 'limit'>): Promise<Paged<TrashedPost>> {
    const [rows, total] = await Promise.all([this.trash.trashOf(caller.id, offsetOf(request), request.limit), this.trash.countTrashOf(caller.id)])
    const items = await this.withDetails(rows.map((row) => this.withFields(toPost(row), 'private')), caller)
    return { items: items.map((post, index) => toTrashed(post, rows[index]!)), total }
  }

  /**
   * Brings a post back from the trash as it was: its author when they deleted it themselves (403
   * post_trashed_by_another when someone else did), or a superuser. `post.restored`.
   */
  async restoreFromTrash(caller: PostCaller, id: number, client: ClientInfo): Promise<Post> {
    const restored = await this.unitOfWork.run(async (unit) => {
      const trashed = await this.trash.in(unit).findTrashedPost(id)
      if (!trashed) postNotFound()
      this.assertOwnsTrashed(caller, trashed)
      if (!caller.isSuperuser && trashed.trashed_by !== caller.id) throw trashedByAnother()
      const row = await this.trash.in(unit).untrashPost(id)
      if (!row) postNotFound()
      const post = toPost(row)
      await this.auditChange(unit, await this.readerFor(unit, caller, [post.orgId]), post, client)
      return this.changed(unit, ['post.restored'], await this.attachedIn(unit, post, false))
    })
    return this.withFields(restored, writerLevel(caller))
  }

  /** Removes for good the trashed posts whose time has passed, each once across processes (the cleanup job). */
  async purgeExpiredTrash(): Promise<number> {
    let purged = 0
    for (;;) {
      const due = await this.trash.dueForPurge(PURGE_BATCH)
      for (const id of due) {
        const gone = await this.unitOfWork.run(async (unit) => {
          if (!(await this.trash.in(unit).claimDuePost(id))) return false
          await this.removed(unit, id)
          return true
        })
        if (gone) purged += 1
      }
      if (due.length < PURGE_BATCH) return purged
    }
  }

  /**
   * The publishing job's run: each live scheduled post whose time has come goes out once across
   * processes (its row held in its unit, the status read again there): `post.updated` then
   * `post.published`, `published_at` its scheduled time. One whose author is banned or gone does
   * not: it goes back to a draft. Answers when the next one is due, for the job's sleep.
   */
  async publishDue(): Promise<RunResult> {
    const due = await this.schedule.dueToPublish(PUBLISH_BATCH)
    for (const { id, authorId } of due) {
      // Asked before the unit: on SQLite a read outside it would wait for the unit to end. A ban
      // that lands between the two is one that lands a moment after the post went out.
      const goesOut = await this.authors.mayPublish(authorId)
      await this.unitOfWork.run(async (unit) => {
        const row = await this.posts.in(unit).findPostForChange(id)
        const post = row && toPost(row)
        if (!post || post.status !== 'scheduled' || post.publishAt === null || Date.parse(post.publishAt) > Date.now()) return
        const columns = goesOut ? { status: 'published', publish_at: null, ...(post.publishedAt === null ? { published_at: post.publishAt } : {}) } : { status: 'draft', publish_at: null }
        const changed = await this.posts.in(unit).updatePost(id, columns)
        if (!changed) return
        await this.changed(unit, goesOut ? ['post.updated', 'post.published'] : ['post.updated'], await this.attachedIn(unit, toPost(changed), false))
      })
    }
    return due.length > 0 || untilDue(await this.schedule.nextPublishAt())
  }

  /** Removes the post in the unit with its files (through the store's outbox) and revisions: `post.removed`. */
  private async removed(unit: Unit, id: number): Promise<Post> {
    await this.files.removeAllOfPost(unit, id)
    const row = await this.posts.in(unit).deletePostPermanently(id)
    if (!row) postNotFound()
    const post = toPost(row)
    await this.changed(unit, ['post.removed'], post)
    return post
  }

  /** A trashed post is its author's and superusers': 404 to anyone else, 403 to a read-only key. */
  private assertOwnsTrashed(caller: PostCaller, trashed: TrashedPostRow): void {
    if (!caller.isSuperuser && trashed.author_id !== caller.id) postNotFound()
    if (caller.readOnly === true) throw forbidden()
  }

  /** A superuser's list holding a post only their superuser rights open is recorded, in every order. */
  private async recordSuperuserListing(reader: Reader, caller: PostCaller | null, items: readonly Post[], client: ClientInfo): Promise<void> {
    if (reader.isSuperuser && caller && items.some((post) => !readsAsUser(reader, post))) {
      await this.securityEvents.record('posts_listed_as_superuser', caller.id, client)
    }
  }

  /** The post and the caller as a reader of it, or 404 when the policy does not let them read it. */
  private async readable(caller: PostCaller | null, id: number, client: ClientInfo): Promise<{ post: Post; reader: Reader }> {
    const row = await this.posts.findPostById(id)
    if (!row) postNotFound()
    const post = toPost(row)
    // Only the post's own organization can open it to a caller who is not its author: nobody else's roles are read.
    const reader = caller === null ? ANONYMOUS : await this.readerFor(undefined, caller, caller.id === post.authorId ? [] : [post.orgId])
    if (!mayRead(reader, post)) postNotFound()
    if (caller && reader.isSuperuser && !readsAsUser(reader, post)) {
      await this.securityEvents.record('post_read_as_superuser', caller.id, client, { postId: post.id })
    }
    return { post, reader }
  }

  /** The live post held in the unit, and the caller as its reader: 404 if they may not read it, 403 if they may read but not edit it. */
  private async editable(unit: Unit, caller: PostCaller, id: number, movingTo: number | null | undefined): Promise<{ post: Post; reader: Reader }> {
    const row = await this.posts.in(unit).findPostForChange(id)
    if (!row) postNotFound()
    const post = toPost(row)
    const reader = await this.readerFor(unit, caller, [post.orgId, movingTo ?? null])
    if (!mayRead(reader, post)) postNotFound()
    if (!mayEdit(reader, post)) throw forbidden()
    return { post, reader }
  }

  /** A post by its owner's name (its organization's slug, or its author's username) and its slug, as get reads it; or the post an old slug of theirs now stands for. */
  async getBySlug(caller: PostCaller | null, owner: string, slug: string, client: ClientInfo): Promise<{ post: Post } | { movedTo: number }> {
    const scopes = await this.posts.slugScopesOf(owner)
    // An organization's and a user's of the same name: the organization's post first.
    const rows = (await this.posts.postsWithSlug(scopes, slug)).sort((a, b) => scopes.indexOf(slugScope(a.org_id, a.author_id)) - scopes.indexOf(slugScope(b.org_id, b.author_id)))
    for (const row of rows) {
      const readable = await this.readableOrNone(caller, row.id, client)
      if (readable) return { post: readable.post }
    }
    for (const old of await this.posts.redirectedSlug(scopes, slug)) {
      if (await this.readableOrNone(caller, old.post_id, client)) return { movedTo: old.post_id }
    }
    postNotFound()
  }

  private async readableOrNone(caller: PostCaller | null, id: number, client: ClientInfo): Promise<{ post: Post; reader: Reader } | undefined> {
    try {
      return await this.readable(caller, id, client)
    } catch (error) {
      if (error instanceof DomainError && error.code === 'post_not_found') return undefined
      throw error
    }
  }

  /**
   * The slug a post gets in the scope, the scope held for the rest of the unit: the one asked for
   * (409 post_slug_taken when another post of the scope has it), or the first of `base`, `base-2` to
   * `base-9` that none has, or else `base-` and six random characters: a few probes of the unique
   * index however many posts share a title.
   */
  private async slugIn(unit: Unit, scope: string, asked: string | null, base: string, postId: number | null): Promise<string> {
    const posts = this.posts.in(unit)
    await posts.lockSlugScope(scope)
    for (const candidates of asked === null ? [numberedSlugs(base), randomSlugs(base)] : [[asked]]) {
      const taken = new Set(await posts.takenSlugs(scope, candidates, postId))
      const free = candidates.find((candidate) => !taken.has(candidate))
      if (free !== undefined) return free
    }
    throw slugTaken()
  }

  /**
   * The slug columns of an edit that gives the post a new slug or moves it to another scope (its
   * slug kept when free there), with its old slug kept finding it; nothing otherwise.
   */
  private async readdressed(unit: Unit, post: Post, orgId: number | null, asked: string | undefined): Promise<Pick<PostRowChanges, 'slug' | 'slug_scope'>> {
    if (asked === undefined && orgId === post.orgId) return {}
    const scope = slugScope(orgId, post.authorId)
    const posts = this.posts.in(unit)
    const oldScope = await posts.slugScopeOfPost(post.id)
    if (scope === oldScope && (asked === undefined || asked === post.slug)) return {}
    const slug = await this.slugIn(unit, scope, asked ?? null, post.slug, post.id)
    // A row written without a slug (by hand, not by this service) has no old address to keep.
    if (oldScope && post.slug) await posts.recordOldSlug(oldScope, post.slug, post.id)
    return { slug, slug_scope: scope }
  }

  /** The caller as a reader, knowing their roles in the named organizations only. */
  private async readerFor(unit: Unit | undefined, caller: PostCaller, orgIds: (number | null)[]): Promise<Reader> {
    const orgRoles = new Map<number, MemberRole>()
    for (const orgId of new Set(orgIds)) {
      if (orgId === null) continue
      const role = await this.memberships.roleIn(unit, orgId, caller.id)
      if (role !== undefined) orgRoles.set(orgId, role)
    }
    return { userId: caller.id, isSuperuser: caller.isSuperuser, orgRoles, mayWrite: caller.readOnly !== true }
  }

  /** The caller must belong to the organization the post leaves and the one it joins (superusers need not); its author, to the one it joins. */
  private async assertMayMove(unit: Unit, reader: Reader, post: Post, to: number | null): Promise<void> {
    if (!reader.isSuperuser) {
      for (const orgId of [post.orgId, to]) if (orgId !== null && !reader.orgRoles.has(orgId)) throw notAMember()
    }
    if (to !== null && (await this.memberships.roleIn(unit, to, post.authorId)) === undefined) throw notAMember()
  }

  private async auditChange(unit: Unit, reader: Reader, post: Post, client: ClientInfo): Promise<void> {
    if (reader.isSuperuser && reader.userId !== null && !readsAsUser(reader, post)) {
      await this.securityEvents.record('post_changed_as_superuser', reader.userId, client, { unit, postId: post.id })
    }
  }

  /**
   * The post with its ready files, as its change event carries them. Its row's kept count says when
   * it has none, unless files were attached in this unit after the row was read: a post written
   * without files asks nothing of the files table (on PostgreSQL a round trip inside the transaction).
   */
  private async attachedIn(unit: Unit, post: Post, attachedNow: boolean): Promise<Post> {
    if (!attachedNow && post.attachmentCount === 0) return { ...post, attachments: [] }
    return { ...post, attachments: (await this.files.of([post.id], unit)).get(post.id) ?? [] }
  }

  /** Records the change in its unit (its change events are written there) and gives the post back. */
  private async changed(unit: Unit, types: PostEventType[], post: Post): Promise<Post> {
    // Events go to every reader the policy lets read the post: they carry its public fields.
    const published = this.withFields(post, 'public')
    for (const type of types) await this.changes.postChanged(unit, type, published)
    return post
  }

  private assertMayWrite(writer: PostCaller): void {
    assertVerifiedWriter(writer, this.options.requireVerifiedEmail)
  }
}

/**
 * With REQUIRE_VERIFIED_EMAIL, only verified users (and superusers) write posts, comments and
 * reactions (403 `email_not_verified`): the one check every writing path of content calls.
 */
export function assertVerifiedWriter(writer: PostCaller, requireVerifiedEmail: boolean): void {
  if (requireVerifiedEmail && !writer.isSuperuser && writer.isVerified !== true) {
    throw new DomainError('forbidden', EMAIL_NOT_VERIFIED, { code: 'email_not_verified' })
  }
}

function toTrashed(post: Post, row: TrashedPostRow): TrashedPost {
  return { post, deletedAt: toIsoString(row.deleted_at!), purgeAt: toIsoString(row.trashed_until!), trashedBy: row.trashed_by }
}

/** Reported as a validation error of the field (422 validation_failed). */
function orgIdRequired(): never {
  throw new RuleViolation('org_id', ORG_ID_REQUIRED, 'required')
}
