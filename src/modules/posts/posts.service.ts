// Post rules: anyone reads, a logged-in caller writes as themselves, the author or a
// superuser edits and deletes, only a superuser removes permanently. No HTTP here.
import type { Executor } from '../../db/schema.js'
import type { Actor } from '../../shared/actor.js'
import { DomainError, assertSuperuser, forbidden, notAuthenticated } from '../../shared/errors.js'
import { fetchPaged } from '../../shared/paging.js'
import type { PageRequest, Paged, RowWindow } from '../../shared/paging.js'
import { toPost } from './post.js'
import type { Post, PostChanges, PostFilter, PostInput } from './post.js'
import * as posts from './posts.repository.js'

export const POST_NOT_FOUND = 'Post not found'
export const EMAIL_NOT_VERIFIED = 'Email not verified'

/** Who writes: with REQUIRE_VERIFIED_EMAIL, only verified users (and superusers) may. */
export interface Writer extends Actor {
  isVerified?: boolean
}

function postNotFound(): never {
  throw new DomainError('not_found', POST_NOT_FOUND)
}

const toRowChanges = ({ mediaUrl, ...rest }: PostChanges) => (mediaUrl === undefined ? rest : { ...rest, media_url: mediaUrl })

export class PostService {
  constructor(
    private readonly db: Executor,
    private readonly options: { requireVerifiedEmail: boolean } = { requireVerifiedEmail: false },
  ) {}

  async get(id: number): Promise<Post> {
    const row = await posts.findPostById(this.db, id)
    return row ? toPost(row) : postNotFound()
  }

  /** Newest first. */
  list(filter: PostFilter, request: PageRequest): Promise<Paged<Post>> {
    const rows = (window: RowWindow) => posts.listPosts(this.db, filter, window)
    return fetchPaged(request, { rows, count: () => posts.countPosts(this.db, filter), keyOf: (row) => row.id }, toPost)
  }

  /** The author is always the caller; a client cannot write as someone else. */
  async create(author: Writer, input: PostInput): Promise<Post> {
    this.assertMayWrite(author)
    const row = await posts.insertPost(this.db, {
      author_id: author.id,
      title: input.title,
      text: input.text,
      media_url: input.mediaUrl ?? null,
    })
    // The caller's account was deleted while the request was on its way: their token is done.
    if (!row) throw notAuthenticated()
    return toPost(row)
  }

  async update(actor: Writer, id: number, changes: PostChanges): Promise<Post> {
    this.assertMayWrite(actor)
    await this.assertAuthorOrSuperuser(actor, id)
    const row = await posts.updatePost(this.db, id, toRowChanges(changes))
    return row ? toPost(row) : postNotFound()
  }

  async softDelete(actor: Actor, id: number): Promise<void> {
    await this.assertAuthorOrSuperuser(actor, id)
    if (!(await posts.softDeletePost(this.db, id))) postNotFound()
  }

  async deletePermanently(actor: Actor, id: number): Promise<void> {
    assertSuperuser(actor)
    if (!(await posts.deletePostPermanently(this.db, id))) postNotFound()
  }

  /** Hides every post of an author, inside the caller's transaction (the author's soft deletion). */
  hideAllOf(trx: Executor, authorId: number): Promise<void> {
    return posts.hidePostsOf(trx, authorId)
  }

  /** Undoes hideAllOf: the posts hidden with their author (at `since` or later) come back; older deletions stay. */
  unhideAllOf(trx: Executor, authorId: number, since: string): Promise<void> {
    return posts.unhidePostsOf(trx, authorId, since)
  }

  private assertMayWrite(writer: Writer): void {
    if (this.options.requireVerifiedEmail && !writer.isSuperuser && writer.isVerified !== true) {
      throw new DomainError('forbidden', EMAIL_NOT_VERIFIED)
    }
  }

  /** Posts are public, so their existence is no secret: 404 comes before 403. */
  private async assertAuthorOrSuperuser(actor: Actor, id: number): Promise<void> {
    const post = await this.get(id)
    if (post.authorId !== actor.id && !actor.isSuperuser) throw forbidden()
  }
}
