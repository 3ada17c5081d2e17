// The comments slice's public face: what other slices may use. Everything else in this folder is
// the slice's own (eslint.config.js refuses a reach past this file).
export type { Comment } from './comment.js'
export type { CommentChangeLog, CommentEventType } from './comment-change-log.js'
export { COMMENT_EVENT_TYPES } from './comment-change-log.js'
export { toCommentEventRead, toCommentRead } from './comments.mappers.js'
export { CommentRead } from './comments.schemas.js'
export type { CommentHit, CommentService } from './comments.service.js'
