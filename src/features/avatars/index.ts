// The avatars feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export { BlobAvatarStorage, DatabaseAvatarStorage } from './avatar-storage.js'
export type { AvatarUpload, ImageIntake } from './avatars.service.js'
export { AvatarService, DEFAULT_PROFILE_IMAGE_URL } from './avatars.service.js'
