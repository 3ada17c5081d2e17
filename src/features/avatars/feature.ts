// Avatars: uploads, their storage (disk or database) and serving them.
import { type Feature, routes } from '../feature.js'
import { cleanImage, type ImageLimits, withoutStoredMetadata } from '../files/index.js'
import { BlobAvatarStorage, DatabaseAvatarStorage } from './avatar-storage.js'
import { avatarsFunctions, avatarsReadTargets } from './avatars.repository.js'
import { AvatarService } from './avatars.service.js'
import { avatarsErrorCodes } from './errors.js'
import mediaRoutes from './media.routes.js'
import { type AvatarStorageKind, avatarStorageSetting } from './settings.js'

interface AvatarsServices {
  avatars: AvatarService
}

export const avatarsFeature: Feature<AvatarsServices, { avatarStorage: AvatarStorageKind }> = { name: 'avatars',
  settings: (env, config) => ({ avatarStorage: avatarStorageSetting(env, config) }),
  errors: avatarsErrorCodes,
  needs: ['files'],
  create({ config, bind, peers: { blobStore } }) {
    // Avatars share the files' store (STORAGE), or live in the database (AVATAR_STORAGE); they are
    // stored as every image is, through the files feature's one intake.
    const storage = config.avatarStorage === 'database' ? new DatabaseAvatarStorage(bind(avatarsFunctions, avatarsReadTargets)) : new BlobAvatarStorage(blobStore)
    const limits: ImageLimits = { maxPixels: config.files.maxPixels, maxBytes: config.uploadMaxBytes, maxBytesSetting: 'UPLOAD_MAX_BYTES' }
    return { avatars: new AvatarService(storage, { clean: (data, contentType) => cleanImage(data, contentType, limits), stripped: withoutStoredMetadata }) }
  },
 migrations: ['2026-11-21-03-avatars', '2026-11-22-01-sessions-and-avatar-keys'], appRoutes: [routes(mediaRoutes)] }
