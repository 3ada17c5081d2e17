// Real images for upload tests, made with sharp, and a decompression bomb made by hand.
import { crc32, deflateSync } from 'node:zlib'

import sharp from 'sharp'

/** A JPEG carrying EXIF with a camera and a GPS position, as phones write them. */
export function jpegWithGps(width = 640, height = 480): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#c0392b' } })
    .jpeg()
    .withExif({ IFD0: { Make: 'TestCam', Model: 'Phone 1', Copyright: 'someone' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1', GPSLongitudeRef: 'W', GPSLongitude: '0/1 7/1 0/1' } })
    .toBuffer()
}

/**
 * A few kilobytes of PNG (a two-colour palette, one bit a pixel, a checkerboard of 3000 × 3000)
 * that a re-encoding with the default settings writes as over a hundred kilobytes.
 */
export function smallPngThatInflates(width = 3000, height = 3000): Promise<Buffer> {
  const raw = Buffer.alloc(width * height)
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raw[y * width + x] = (x ^ y) & 1 ? 255 : 0
  return sharp(raw, { raw: { width, height, channels: 1 } }).png({ palette: true, colours: 2, compressionLevel: 9, adaptiveFiltering: true }).toBuffer()
}

export function png(width = 32, height = 32): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: '#2e86de' } }).png().toBuffer()
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/** A PNG whose header claims width × height pixels in a few hundred bytes: decoding it would take gigabytes. */
export function decompressionBombPng(width = 20_000, height = 20_000): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 0, 0, 0, 0], 8)
  const row = Buffer.alloc(1 + width)
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(row)), chunk('IEND', Buffer.alloc(0))])
}

export const MINIMAL_PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n')

export const SVG_WITH_SCRIPT = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(document.cookie)</script></svg>')
