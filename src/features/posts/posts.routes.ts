// Post endpoints of every version. Version 1 answers lists with a plain array and knows posts as
// the specification has them (public and published); version 2 answers with the paginated
// envelope and adds who may read a post (visibility, status, organization). Both ask the same
// service, so the post policy decides every version's answers.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { TObject } from 'typebox'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses, MessageResponse } from '../../api/common/responses.js'
import { optionalBearerOrApiKey } from '../../api/common/security-scheme.js'
import { filled } from '../../shared/filters.js'
import type { FieldValues } from '../content-fields/index.js'
import type { Services } from '../feature.js'
import type { PostFormat } from './markdown.js'
import type { Post, PostChanges, PostInput } from './post.js'
import { postCallerOf, signedInPostCallerOf } from './post-caller.http.js'
import { postReadsFor } from './post-expansions.http.js'
import type { PostPageQuery } from './post-page.http.js'
import { postPageV2 } from './post-page.http.js'
import type { CommentSetting, PostStatus, Visibility } from './post-policy.js'
import { ExpandQuery, POST_BODY_LIMIT_BYTES, PostIdParams, PostListQuery, PostListQueryV2, PostListRefusedResponse } from './posts.schemas.js'

/** A body as either version takes it: v2's also names visibility, status and organization. */
interface PostBody {
  title?: string
  text?: string
  format?: PostFormat
  media_url?: string | null
  visibility?: Visibility
  status?: PostStatus
  org_id?: number | null
  comments?: CommentSetting
  attachments?: number[]
  fields?: FieldValues
  language?: string | null
  tags?: string[]
  publish_at?: string | null
}

export interface PostsRouteOptions {
  list: 'array' | 'envelope'
  /** Version 2: posts carry their files (read with them; attached on create and update, 409 for one on another post). */
  attachments: boolean
  /** Version 2: a delete goes to the author's trash (docs/api.md "Trash"); version 1's stays a soft delete. */
  trash: boolean
  toPostRead: (post: Post) => Record<string, unknown>
  /** The version's shapes: version 2's carry the declared custom fields. */
  schemas: (services: Services) => { read: TObject; create: TObject; update: TObject; page?: TObject }
}

const tags = ['posts']

const PermanentQuery = Type.Object({ permanent: Type.Boolean({ default: false, description: 'Remove the post for good instead of moving it to the trash' }) })

const fromPostBody = ({ media_url: mediaUrl, org_id: orgId, publish_at: publishAt, ...rest }: PostBody): PostChanges => ({
  ...rest,
  ...(publishAt === undefined ? {} : { publishAt }),
  ...(mediaUrl === undefined ? {} : { mediaUrl }),
  ...(orgId === undefined ? {} : { orgId }),
})

const postsRoutes: FastifyPluginAsyncTypebox<PostsRouteOptions> = async (app, { list, attachments, trash, toPostRead, schemas: shapesOf }) => {
  const { posts } = app.services
  const schemas = shapesOf(app.services)
  const pageShape = () => {
    if (!schemas.page) throw new Error('a list in envelopes needs its page shape')
    return schemas.page
  }
  const envelope = list === 'envelope'
  const PostListQueryByAuthor = Type.Object({ ...PostListQueryV2.properties, author_id: PostListQuery.properties.author_id })
  // Version 2's texts are ten times version 1's: their bodies may pass the 1 MiB every other JSON body is held to.
  const bodyLimit = envelope ? { bodyLimit: POST_BODY_LIMIT_BYTES } : {}

  app.get(
    '/',
    {
      schema: {
        tags,
        summary: 'List the posts the caller may see, newest first',
        security: optionalBearerOrApiKey,
        querystring: envelope ? PostListQueryByAuthor : PostListQuery,
        response: { 200: envelope ? pageShape() : Type.Array(schemas.read), ...errorResponses(...(envelope ? [400, 422] : [422])), ...(envelope ? { 422: PostListRefusedResponse } : {}) },
      },
    },
    async (request) => {
      const { page, limit, search, author_id: authorId, tag } = request.query
      const caller = postCallerOf(request)
      // Only version 2 answers with the envelope, and with its own shape of a post.
      if (envelope) return postPageV2(request, caller, request.query as PostPageQuery, { authorId })
      return (await posts.list(caller, { search: filled(search), authorId, tag }, { page, limit, countTotal: false }, clientOf(request))).items.map(toPostRead)
    },
  )

  app.get(
    '/:post_id',
    {
      schema: {
        tags,
        summary: 'Get a post the caller may read',
        security: optionalBearerOrApiKey,
        params: PostIdParams,
        ...(envelope ? { querystring: ExpandQuery } : {}),
        response: { 200: schemas.read, ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const caller = postCallerOf(request)
      const post = await posts.get(caller, request.params.post_id, clientOf(request))
      if (!attachments) return toPostRead(post)
      const [detailed] = await posts.withDetails([post], caller)
      return (await postReadsFor(request, caller, [detailed!], (request.query as { expand?: string }).expand))(detailed!)
    },
  )

  app.post(
    '/',
    {
      ...protectedRoute(app, {
        tags,
        summary: 'Write a post as the caller',
        body: schemas.create,
        // Attached files may belong to another post (409).
        response: { 201: schemas.read, ...errorResponses(...(attachments ? [403, 409, 413, 422] : [403, 422])) },
      }, { wayIn: 'none', impersonation: 'allowed' }),
      ...bodyLimit,
    },
    async (request, reply) => {
      const { title = '', text = '', ...rest } = fromPostBody(request.body as PostBody)
      const input: PostInput = { title, text, ...rest }
      return reply.code(201).send(toPostRead(await posts.create(signedInPostCallerOf(request), input)))
    },
  )

  app.patch(
    '/:post_id',
    {
      ...protectedRoute(app, {
        tags,
        summary: 'Edit a post (its author, its organization’s admins and owners, or a superuser)',
        params: PostIdParams,
        body: schemas.update,
        response: { 200: schemas.read, ...errorResponses(...(attachments ? [403, 404, 409, 413, 422] : [403, 404, 422])) },
      }, { wayIn: 'none', impersonation: 'allowed' }),
      ...bodyLimit,
    },
    async (request) => {
      const changes = fromPostBody(request.body as PostBody)
      const caller = signedInPostCallerOf(request)
      const post = await posts.update(caller, request.params.post_id, changes, clientOf(request))
      return toPostRead(attachments ? (await posts.withDetails([post], caller))[0]! : post)
    },
  )

  app.delete(
    '/:post_id',
    protectedRoute(app, {
      tags,
      summary: trash
        ? 'Delete a post into its author’s trash (its author, its organization’s admins and owners, or a superuser); `permanent=true` removes it for good (its author or a superuser)'
        : 'Soft-delete a post (its author, its organization’s admins and owners, or a superuser)',
      params: PostIdParams,
      ...(trash ? { querystring: PermanentQuery } : {}),
      response: { 200: MessageResponse, ...errorResponses(403, 404, 422) },
    }, { wayIn: 'none', impersonation: 'allowed' }),
    async (request) => {
      const caller = signedInPostCallerOf(request)
      const { post_id: id } = request.params
      if (!trash) await posts.softDelete(caller, id, clientOf(request))
      else if ((request.query as { permanent?: boolean }).permanent) {
        await posts.deleteForGood(caller, id, clientOf(request))
        return { message: 'Post deleted from the database' }
      } else await posts.moveToTrash(caller, id, clientOf(request))
      return { message: 'Post deleted' }
    },
  )

  app.delete(
    '/:post_id/permanent',
    protectedRoute(app, {
      tags,
      summary: 'Remove a post from the database (superuser)',
      params: PostIdParams,
      response: { 200: MessageResponse, ...errorResponses(403, 404, 422) },
    }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => {
      await posts.deletePermanently(signedInPostCallerOf(request), request.params.post_id, clientOf(request))
      return { message: 'Post deleted from the database' }
    },
  )
}

export default postsRoutes
