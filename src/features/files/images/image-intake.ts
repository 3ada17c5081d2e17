// The one way an image is stored, as a file or as an avatar: its header read (sharp, loaded the
// first time an image arrives) for the pixel limit, its metadata removed without re-encoding it
// (strip-metadata.ts), and its pixels decoded once, small, to prove they decode; what is stored is
// at most FILE_MAX_BYTES (or the avatar's limit), never more than what came in but for a few
// bytes of orientation. Variants are rendered from it when first asked for (variants.ts).
import { DomainError, RuleViolation } from '../../../shared/errors.js'
import { loadSharp, withImageSlot } from './sharp.js'
import type { ImageFormat } from './strip-metadata.js'
import { MalformedImage, stripMetadata } from './strip-metadata.js'

/** Types stored as images (cleaned here, with variants); the originals of these are kept without metadata. */
export const IMAGE_FORMATS: Readonly<Record<string, ImageFormat>> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' }

export const isImageType = (contentType: string): boolean => contentType in IMAGE_FORMATS

export interface ImageLimits {
  /** The most pixels a frame may have (FILE_MAX_PIXELS). */
  maxPixels: number
  /** The most bytes the stored image may have, and the setting that says so. */
  maxBytes: number
  maxBytesSetting: string
}

export const unreadableImage = () => new DomainError('unsupported', 'The image could not be read', { code: 'unsupported_file_type' })

export const imageTooLarge = (maxPixels: number) =>
  new RuleViolation('file', `The image has more than ${maxPixels} pixels (FILE_MAX_PIXELS)`, 'image_too_large', { code: 'image_too_large' })

/** Names the setting that bounds a stored image, and its value. */
export const imageTooManyBytes = (limits: Pick<ImageLimits, 'maxBytes' | 'maxBytesSetting'>) =>
  new DomainError('too_large', `Images may be at most ${limits.maxBytes} bytes (${limits.maxBytesSetting})`)

/** The image as it is stored: without its metadata, within the limits; 415 when it is not the image its type says, 422 past the pixel limit, 413 past the byte limit. */
export async function cleanImage(data: Buffer, contentType: string, limits: ImageLimits): Promise<Buffer> {
  const format = IMAGE_FORMATS[contentType]
  if (format === undefined) throw unreadableImage()
  const sharp = await loadSharp()
  let metadata
  try {
    // The header only: no pixel is decoded, so no limit is needed to read it.
    metadata = await sharp(data, { limitInputPixels: false }).metadata()
  } catch {
    throw unreadableImage()
  }
  if (metadata.format !== format) throw unreadableImage()
  const width = metadata.width ?? 0
  const height = metadata.pageHeight ?? metadata.height ?? 0
  if (width * height > limits.maxPixels) throw imageTooLarge(limits.maxPixels)
  let stripped: Buffer
  try {
    stripped = stripMetadata(data, format)
  } catch (error) {
    if (error instanceof MalformedImage) throw unreadableImage()
    throw error
  }
  if (stripped.length > limits.maxBytes) throw imageTooManyBytes(limits)
  // The pixels decode (a header that promises an image proves nothing); small, so it costs little memory.
  try {
    await withImageSlot(() => sharp(stripped, { limitInputPixels: limits.maxPixels, failOn: 'error' }).resize(64, 64, { fit: 'inside' }).raw().toBuffer())
  } catch (error) {
    if (/pixel limit/i.test(error instanceof Error ? error.message : '')) throw imageTooLarge(limits.maxPixels)
    throw unreadableImage()
  }
  return stripped
}

/**
 * A stored image without the metadata the intake removes: the same bytes when it has none (or
 * is not an image it knows). Cheap (no decoding), for images stored before the intake cleaned them.
 */
export function withoutStoredMetadata(data: Buffer, contentType: string): Buffer {
  const format = IMAGE_FORMATS[contentType]
  if (format === undefined) return data
  try {
    return stripMetadata(data, format)
  } catch {
    return data
  }
}
