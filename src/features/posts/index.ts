// The posts feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export type { Post } from './post.js'
export { postCallerOf, signedInPostCallerOf } from './post-caller.http.js'
export type { PostChangeLog, PostEventType } from './post-change-log.js'
export { POST_EVENT_TYPES } from './post-change-log.js'
export type { CommentSetting, MemberRole, PostFacts, PostStatus, Reader, Visibility } from './post-policy.js'
export { ANONYMOUS, mayComment, mayList, mayModerateComments, mayRead, POST_STATUSES, VISIBILITIES } from './post-policy.js'
export { postFactsOf, toPostEventRead, toPostRead, toPostReadV2 } from './posts.mappers.js'
export { PostIdParams } from './posts.schemas.js'
export type { PostCaller, PostFiles, PostMemberships } from './posts.service.js'
export { assertVerifiedWriter, PostService } from './posts.service.js'
