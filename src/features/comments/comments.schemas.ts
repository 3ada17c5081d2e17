// The comment resource's shapes.
import { Type } from 'typebox'

import { CursorPageEnvelopeSchema, CursorParameter } from '../../api/common/page-envelope.js'
import { PageNumber } from '../../shared/page-number.js'
import { RecordId } from '../../shared/record-id.js'
import { MyReactions, ReactionCounts } from '../reactions/index.js'

// At least one visible character: a comment of spaces says nothing.
const Text = Type.String({ minLength: 1, maxLength: 5_000, pattern: '\\S', examples: ['Well said.'] })

export const CommentIdParams = Type.Object({ comment_id: RecordId })

export const CommentRead = Type.Object(
  {
    id: Type.Integer(),
    post_id: Type.Integer(),
    parent_id: Type.Union([Type.Integer(), Type.Null()], { description: 'The top-level comment it answers; null for a top-level comment' }),
    author_id: Type.Union([Type.Integer(), Type.Null()], { description: 'Null on a tombstone (deleted, removed, or hidden from the caller)' }),
    text: Type.Union([Type.String(), Type.Null()], { description: 'Null on a tombstone: the thread keeps its place, the words are gone' }),
    status: Type.Union([Type.Literal('visible'), Type.Literal('hidden'), Type.Literal('deleted'), Type.Literal('removed')], {
      description: "hidden: by the post's author, its organization's admins or a superuser; read whole by its author and them. deleted: by its author. removed: by a superuser.",
    }),
    hidden_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it was hidden: told to its author and the moderators only' }),
    reply_count: Type.Integer({ description: 'Its visible replies' }),
    reaction_counts: ReactionCounts,
    my_reactions: MyReactions,
    edited_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'CommentRead' },
)

export const ThreadRead = Type.Object({ ...CommentRead.properties, replies: Type.Array(CommentRead, { description: 'Its first replies, oldest first (GET /comments/{id}/replies has the rest)' }) }, { title: 'ThreadRead' })

export const CommentCreate = Type.Object(
  { text: Text, parent_id: Type.Optional(Type.Union([RecordId, Type.Null()], { description: 'The comment it answers; a reply to a reply joins that reply’s thread' })) },
  { additionalProperties: false, title: 'CommentCreate' },
)

export const CommentUpdate = Type.Object({ text: Text }, { additionalProperties: false, title: 'CommentUpdate' })

export const CommentHide = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S', examples: ['Off topic'] }) }, { additionalProperties: false, title: 'CommentHide' })

const Limit = Type.Integer({ minimum: 1, maximum: 100, default: 20 })

export const ThreadListQuery = Type.Object({
  page: PageNumber,
  limit: Limit,
  cursor: Type.Optional(CursorParameter),
  order: Type.Union([Type.Literal('oldest'), Type.Literal('newest')], { default: 'oldest', description: 'Oldest first (a conversation in order) or newest first' }),
})

export const ReplyListQuery = Type.Object({ page: PageNumber, limit: Limit, cursor: Type.Optional(CursorParameter) })

export const ThreadPage = CursorPageEnvelopeSchema(ThreadRead, 'ThreadPage')
export const ReplyPage = CursorPageEnvelopeSchema(CommentRead, 'CommentPage')
