// Metadata removed from real images (made with sharp) of every format the service stores: EXIF
// with GPS, XMP, comments and what follows the image's end go, the pixels stay the same, an
// orientation stays as one tag, nothing grows, stripping twice changes nothing, and bytes that do
// not follow their format are refused.
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'

import { smallPngThatInflates } from '../../../../test/helpers/images.js'
import type { ImageFormat } from './strip-metadata.js'
import { MalformedImage, orientationIn, stripMetadata } from './strip-metadata.js'

const XMP = '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>Ada at home</dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>'
const EXIF = { IFD0: { Make: 'TestCam', Model: 'Phone 1' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1', GPSLongitudeRef: 'W', GPSLongitude: '0/1 7/1 0/1' } }
const TRAILER = Buffer.from('<html><script>alert(1)</script></html>')

async function photo(format: ImageFormat, orientation?: number): Promise<Buffer> {
  let image = sharp({ create: { width: 48, height: 32, channels: 3, background: '#c0392b' } })
  image = format === 'jpeg' ? image.jpeg({ progressive: true }) : format === 'png' ? image.png() : format === 'webp' ? image.webp() : image.gif()
  if (format === 'gif') return image.toBuffer()
  if (orientation !== undefined) image = image.withMetadata({ orientation })
  return image.withExif(EXIF).withXmp(XMP).toBuffer()
}

const pixels = async (data: Buffer) => sharp(data).autoOrient().raw().toBuffer({ resolveWithObject: true })
const traces = /TestCam|GPS|Ada at home|<script>/

describe('stripping an image of its metadata', () => {
  it.each(['jpeg', 'png', 'webp', 'gif'] as const)('%s: takes EXIF, GPS, XMP and a trailer away, keeps the pixels, grows nothing, and twice is once', async (format) => {
    const original = await photo(format)
    const sent = Buffer.concat([original, TRAILER])
    const stripped = stripMetadata(sent, format)
    expect(stripped.toString('latin1')).not.toMatch(traces)
    expect(stripped.length).toBeLessThanOrEqual(original.length)
    const metadata = await sharp(stripped).metadata()
    expect([metadata.exif, metadata.xmp]).toEqual([undefined, undefined])
    const [before, after] = await Promise.all([pixels(original), pixels(stripped)])
    expect(after.info).toMatchObject({ width: before.info.width, height: before.info.height })
    expect(after.data.equals(before.data)).toBe(true)
    expect(stripMetadata(stripped, format).equals(stripped)).toBe(true)
  })

  it.each(['jpeg', 'png', 'webp'] as const)('%s: keeps an orientation other than upright, as one tag, so the picture still turns', async (format) => {
    const turned = await photo(format, 6)
    const stripped = stripMetadata(turned, format)
    const metadata = await sharp(stripped).metadata()
    expect(metadata.orientation).toBe(6)
    expect(orientationIn(metadata.exif!)).toBe(6)
    expect(stripped.toString('latin1')).not.toMatch(traces)
    expect((await pixels(stripped)).data.equals((await pixels(turned)).data)).toBe(true)
    expect(stripMetadata(stripped, format).equals(stripped)).toBe(true)
  })

  it('keeps an animated GIF animated, and a palette PNG small', async () => {
    const frames = await sharp({ create: { width: 16, height: 48, channels: 4, background: '#00ff00' } }).gif().toBuffer()
    const animated = await sharp(frames, { animated: true, pages: 1 }).gif({ loop: 0 }).toBuffer()
    const stripped = stripMetadata(animated, 'gif')
    expect((await sharp(stripped).metadata()).loop).toBe((await sharp(animated).metadata()).loop)
    const small = await smallPngThatInflates(600, 600)
    expect(stripMetadata(small, 'png').length).toBeLessThanOrEqual(small.length)
  })

  it.each([
    ['jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00])],
    ['png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48])],
    ['gif', Buffer.from('GIF89a\x01\x00')],
    ['webp', Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WEBPVP8 ')])],
    ['jpeg', Buffer.from('not an image at all')],
  ] as const)('%s: refuses bytes that do not follow the format', (format, data) => {
    expect(() => stripMetadata(data, format)).toThrow(MalformedImage)
  })
})
