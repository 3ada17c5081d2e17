// Post rules: anyone reads, a logged-in caller writes as themselves, the author or a
// superuser edits and deletes, only a superuser removes permanently. No HTTP here.
import type { Executor } from '../../db/schema.js'
import { DomainError, forbidden, notAuthenticated } from '../../shared/errors.js'
import { fetchPage, offsetOf } from '../../shared/pagination.js'
import type { Page } from '../../shared/pagination.js'
import type { Actor } from '../users/users.service.js'
import * as posts from './posts.repository.js'
import type { PostChanges, PostFilter, PostRecord } from './posts.repository.js'

export const POST_NOT_FOUND = 'Post not found'

export interface PostListQuery {
  page: number
  limit: number
  search?: string
  authorId?: number
}

export interface PostInput {
  title: string
  text: string
  media_url?: string | null
}

const filterOf = (query: PostListQuery): PostFilter => ({ search: query.search || undefined, authorId: query.authorId })

function postNotFound(): never {
  throw new DomainError('not_found', POST_NOT_FOUND)
}

export class PostService {
  constructor(private readonly db: Executor) {}

  async get(id: number): Promise<PostRecord> {
    return (await posts.findPostById(this.db, id)) ?? postNotFound()
  }

  /** Newest first; an empty search is no search. */
  list(query: PostListQuery): Promise<PostRecord[]> {
    return posts.listPosts(this.db, filterOf(query), offsetOf(query.page, query.limit), query.limit)
  }

  page(query: PostListQuery): Promise<Page<PostRecord>> {
    const filter = filterOf(query)
    return fetchPage(
      query.page,
      query.limit,
      (offset, limit) => posts.listPosts(this.db, filter, offset, limit),
      () => posts.countPosts(this.db, filter),
    )
  }

  /** The author is always the caller; a client cannot write as someone else. */
  async create(author: Actor, input: PostInput): Promise<PostRecord> {
    const post = await posts.insertPost(this.db, {
      author_id: author.id,
      title: input.title,
      text: input.text,
      media_url: input.media_url ?? null,
    })
    // The caller's account was deleted while the request was on its way: their token is done.
    if (!post) throw notAuthenticated()
    return post
  }

  async update(actor: Actor, id: number, changes: PostChanges): Promise<PostRecord> {
    await this.assertAuthorOrSuperuser(actor, id)
    return (await posts.updatePost(this.db, id, changes)) ?? postNotFound()
  }

  async softDelete(actor: Actor, id: number): Promise<void> {
    await this.assertAuthorOrSuperuser(actor, id)
    if (!(await posts.softDeletePost(this.db, id))) postNotFound()
  }

  async deletePermanently(actor: Actor, id: number): Promise<void> {
    if (!actor.is_superuser) throw forbidden()
    if (!(await posts.deletePostPermanently(this.db, id))) postNotFound()
  }

  /** Posts are public, so their existence is no secret: 404 comes before 403. */
  private async assertAuthorOrSuperuser(actor: Actor, id: number): Promise<void> {
    const post = await this.get(id)
    if (post.author_id !== actor.id && !actor.is_superuser) throw forbidden()
  }
}
