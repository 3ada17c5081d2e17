import { randomUUID } from 'node:crypto'

import { DomainError, FILE_MUST_BE_AN_IMAGE } from '../../shared/errors.js'
import type { AvatarStorage, StoredImage } from './avatar-storage.js'
import { detectImageType } from './image-type.js'

/** Public path under which stored avatars are served (version-neutral, so URLs outlive an API version). */
const notAnImage = () => new DomainError('invalid', FILE_MUST_BE_AN_IMAGE, { code: 'file_not_image' })

export const AVATAR_URL_PREFIX = '/media/avatars/'
export const DEFAULT_AVATAR_NAME = 'default.svg'
export const DEFAULT_PROFILE_IMAGE_URL = `${AVATAR_URL_PREFIX}${DEFAULT_AVATAR_NAME}`
/** Generated names only: a UUID and one of our extensions. */
export const AVATAR_NAME_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.(png|jpg|gif|webp)$'

const AVATAR_NAME = new RegExp(AVATAR_NAME_PATTERN)

const DEFAULT_AVATAR: StoredImage = {
  contentType: 'image/svg+xml',
  data: Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" fill="#d7dce2"/>' +
      '<circle cx="32" cy="25" r="12" fill="#9aa5b1"/><path d="M10 60c2-13 11-20 22-20s20 7 22 20z" fill="#9aa5b1"/></svg>',
  ),
}

/**
 * The service's one image intake (the files feature's): `clean` is what every stored image goes
 * through (metadata removed, pixel and byte limits, the pixels proven to decode); `stripped` is an
 * image stored before without what the intake removes (the same bytes when it has none).
 */
export interface ImageIntake {
  clean(data: Buffer, contentType: string): Promise<Buffer>
  stripped(data: Buffer, contentType: string): Buffer
}

/** An uploaded file as the service sees it: its declared type and a way to read it (which may fail as too large). */
export interface AvatarUpload {
  contentType: string
  read(): Promise<Buffer>
}

export class AvatarService {
  constructor(
    private readonly storage: AvatarStorage,
    private readonly images: ImageIntake,
  ) {}

  /**
   * Validates and stores an upload under a generated name (its key) as every image is stored:
   * without its metadata (where a photo was taken), within the pixel limit. Returns the key and
   * the URL to serve it from.
   */
  async store(upload: AvatarUpload): Promise<{ key: string; url: string }> {
    if (!upload.contentType.toLowerCase().startsWith('image/')) throw notAnImage()
    const data = await upload.read()
    const type = detectImageType(data)
    if (!type) throw notAnImage()
    let cleaned: Buffer
    try {
      cleaned = await this.images.clean(data, type.contentType)
    } catch (error) {
      // Bytes that open like an image and do not decode as one are no image either.
      if (error instanceof DomainError && error.code === 'unsupported_file_type') throw notAnImage()
      throw error
    }
    const name = `${randomUUID()}.${type.extension}`
    await this.storage.save(name, { data: cleaned, contentType: type.contentType })
    return { key: name, url: AVATAR_URL_PREFIX + name }
  }

  /** A stored avatar; one stored before avatars were cleaned is cleaned (and stored so) the first time it is served. */
  async load(name: string): Promise<StoredImage | undefined> {
    if (name === DEFAULT_AVATAR_NAME) return DEFAULT_AVATAR
    if (!AVATAR_NAME.test(name)) return undefined
    const image = await this.storage.load(name)
    if (!image) return undefined
    const stripped = this.images.stripped(image.data, image.contentType)
    if (stripped === image.data || stripped.equals(image.data)) return image
    const cleaned = { ...image, data: stripped }
    await this.storage.replace(name, cleaned)
    return cleaned
  }

  /**
   * Deletes a stored avatar by its key, which only an upload hands out (users.avatar_key). A URL a
   * client wrote is never turned into a key: it may name someone else's avatar.
   */
  async remove(key: string | null): Promise<void> {
    if (key !== null && AVATAR_NAME.test(key)) await this.storage.remove(key)
  }
}
