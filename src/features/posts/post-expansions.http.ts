// `expand` on version 2's post reads: the shape of each post with the related records asked for
// inline under `expand`, read for the whole page at once (PostService.relationsOf).
import type { FastifyRequest } from 'fastify'

import { toOrgRead } from '../orgs/index.js'
import { toUserReadV2, userReader } from '../users/index.js'
import type { Post } from './post.js'
import { relationsOf } from './post-relations.js'
import { toPostReadV2 } from './posts.mappers.js'
import type { PostCaller } from './posts.service.js'

/** How this request's posts are answered: version 2's shape, with `expand` when the query asks for a user or an organization. */
export async function postReadsFor(request: FastifyRequest, caller: PostCaller | null, posts: readonly Post[], expand: string | undefined): Promise<(post: Post) => ReturnType<typeof toPostReadV2>> {
  const relations = relationsOf(expand)
  const author = relations.has('author')
  const org = relations.has('org')
  // Attachments are always inline: asking for them alone changes nothing.
  if (!author && !org) return toPostReadV2
  const related = await request.server.services.posts.relationsOf(posts, caller, relations)
  const toAuthor = userReader(request, toUserReadV2)
  return (post) => {
    const expanded: Record<string, unknown> = {}
    if (author) {
      const user = related.authors.get(post.authorId)
      expanded.author = user ? toAuthor(user) : null
    }
    if (org) {
      const view = post.orgId === null ? undefined : related.orgs.get(post.orgId)
      expanded.org = view ? toOrgRead(view) : null
    }
    return { ...toPostReadV2(post), expand: expanded }
  }
}
