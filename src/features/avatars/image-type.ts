// Recognises the image formats we accept by their leading bytes; the client's content type and
// file name are never trusted for what we store or serve.

export interface ImageType {
  contentType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'
  extension: 'png' | 'jpg' | 'gif' | 'webp'
}

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
const JPEG = [0xff, 0xd8, 0xff]

function startsWith(data: Buffer, bytes: number[], offset = 0): boolean {
  return data.length >= offset + bytes.length && bytes.every((byte, index) => data[offset + index] === byte)
}

function ascii(data: Buffer, start: number, end: number): string {
  return data.subarray(start, end).toString('latin1')
}

export function detectImageType(data: Buffer): ImageType | undefined {
  if (startsWith(data, PNG)) return { contentType: 'image/png', extension: 'png' }
  if (startsWith(data, JPEG)) return { contentType: 'image/jpeg', extension: 'jpg' }
  const gif = ascii(data, 0, 6)
  if (gif === 'GIF87a' || gif === 'GIF89a') return { contentType: 'image/gif', extension: 'gif' }
  if (data.length >= 12 && ascii(data, 0, 4) === 'RIFF' && ascii(data, 8, 12) === 'WEBP') {
    return { contentType: 'image/webp', extension: 'webp' }
  }
  return undefined
}

const CONTENT_TYPES: Record<string, ImageType['contentType']> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
}

export function contentTypeForExtension(extension: string): ImageType['contentType'] | undefined {
  return CONTENT_TYPES[extension]
}
