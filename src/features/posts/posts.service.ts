// Post rules: anyone reads, a logged-in caller writes as themselves, the author or a
// superuser edits and deletes, only a superuser removes permanently. No HTTP here. Each change
// is recorded in the change log in its own unit of work (its change event commits with it).
import type { Unit, UnitOfWork } from '../../db/unit-of-work.js'
import type { Actor } from '../../shared/actor.js'
import { assertSuperuser, DomainError, forbidden, notAuthenticated } from '../../shared/errors.js'
import type { Paged, PageRequest, RowWindow } from '../../shared/paging.js'
import { fetchPaged } from '../../shared/paging.js'
import type { Post, PostChanges, PostFilter, PostInput } from './post.js'
import { toPost } from './post.js'
import type { PostChangeLog, PostEventType } from './post-change-log.js'
import type { PostsRepository } from './posts.repository.js'

export const POST_NOT_FOUND = 'Post not found'
export const EMAIL_NOT_VERIFIED = 'Email not verified'

/** Who writes: with REQUIRE_VERIFIED_EMAIL, only verified users (and superusers) may. */
export interface Writer extends Actor {
  isVerified?: boolean
}

function postNotFound(): never {
  throw new DomainError('not_found', POST_NOT_FOUND, { code: 'post_not_found' })
}

const toRowChanges = ({ mediaUrl, ...rest }: PostChanges) => (mediaUrl === undefined ? rest : { ...rest, media_url: mediaUrl })

export class PostService {
  constructor(
    private readonly posts: PostsRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly changes: PostChangeLog,
    private readonly options: { requireVerifiedEmail: boolean } = { requireVerifiedEmail: false },
  ) {}

  /** An author's posts disappear with them, in the transaction of the deletion. */
  async hideAllOf(unit: Unit, authorId: number): Promise<void> {
    await this.posts.in(unit).hidePostsOf(authorId)
  }

  /** Only the posts hidden with the author (at `deletedAt` or later) come back; older deletions stay. */
  async restoreHiddenWith(unit: Unit, authorId: number, deletedAt: string | null): Promise<void> {
    if (deletedAt !== null) await this.posts.in(unit).unhidePostsOf(authorId, deletedAt)
  }

  async get(id: number): Promise<Post> {
    const row = await this.posts.findPostById(id)
    return row ? toPost(row) : postNotFound()
  }

  /** Newest first. */
  list(filter: PostFilter, request: PageRequest): Promise<Paged<Post>> {
    const rows = (window: RowWindow) => this.posts.listPosts(filter, window)
    return fetchPaged(request, { rows, count: () => this.posts.countPosts(filter), keyOf: (row) => row.id }, toPost)
  }

  /** The author is always the caller; a client cannot write as someone else. */
  async create(author: Writer, input: PostInput): Promise<Post> {
    this.assertMayWrite(author)
    const post = await this.unitOfWork.run(async (unit) => {
      const row = await this.posts.in(unit).insertPost({
        author_id: author.id,
        title: input.title,
        text: input.text,
        media_url: input.mediaUrl ?? null,
      })
      return row && (await this.changed(unit, 'post.created', toPost(row)))
    })
    // The caller's account was deleted while the request was on its way: their token is done.
    if (!post) throw notAuthenticated()
    return post
  }

  async update(actor: Writer, id: number, changes: PostChanges): Promise<Post> {
    this.assertMayWrite(actor)
    await this.assertAuthorOrSuperuser(actor, id)
    const post = await this.unitOfWork.run(async (unit) => {
      const row = await this.posts.in(unit).updatePost(id, toRowChanges(changes))
      return row && (await this.changed(unit, 'post.updated', toPost(row)))
    })
    return post ?? postNotFound()
  }

  async softDelete(actor: Actor, id: number): Promise<void> {
    const post = await this.assertAuthorOrSuperuser(actor, id)
    const deleted = await this.unitOfWork.run(async (unit) => {
      if (!(await this.posts.in(unit).softDeletePost(id))) return false
      await this.changed(unit, 'post.deleted', post)
      return true
    })
    if (!deleted) postNotFound()
  }

  async deletePermanently(actor: Actor, id: number): Promise<void> {
    assertSuperuser(actor)
    const removed = await this.unitOfWork.run(async (unit) => {
      const row = await this.posts.in(unit).deletePostPermanently(id)
      return row && (await this.changed(unit, 'post.removed', toPost(row)))
    })
    if (!removed) postNotFound()
  }

  /** Records the change in its unit (its change event is written there) and gives the post back. */
  private async changed(unit: Unit, type: PostEventType, post: Post): Promise<Post> {
    await this.changes.postChanged(unit, type, post)
    return post
  }

  private assertMayWrite(writer: Writer): void {
    if (this.options.requireVerifiedEmail && !writer.isSuperuser && writer.isVerified !== true) {
      throw new DomainError('forbidden', EMAIL_NOT_VERIFIED, { code: 'email_not_verified' })
    }
  }

  /** Posts are public, so their existence is no secret: 404 comes before 403. */
  private async assertAuthorOrSuperuser(actor: Actor, id: number): Promise<Post> {
    const post = await this.get(id)
    if (post.authorId !== actor.id && !actor.isSuperuser) throw forbidden()
    return post
  }
}
