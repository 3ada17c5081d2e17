// Metadata removed from an image without decoding or encoding it: the format's own blocks are
// walked and only those a decoder needs to show the picture are kept (pixels, palette,
// transparency, colour profile, animation), so the result is never larger than what came in (but
// for the few bytes of an orientation) and loses nothing of the picture. EXIF (camera, GPS), XMP,
// IPTC, comments and text chunks go, as do bytes after the image's end (a file hidden behind it).
// An orientation other than upright, read from the EXIF that goes, is kept as a minimal EXIF
// block holding that one tag, which browsers and the variants apply. Stripping what was stripped
// gives the same bytes, so a stored image can be checked for metadata by stripping it again.

export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp'

/** Bytes that do not follow their format's structure. */
export class MalformedImage extends Error {}

const malformed = (what: string): never => {
  throw new MalformedImage(what)
}

/** A big-endian TIFF block (as EXIF holds it) with one tag: Orientation (0x0112, SHORT). */
export function orientationExif(orientation: number): Buffer {
  const tiff = Buffer.alloc(26)
  tiff.write('MM', 0, 'latin1')
  tiff.writeUInt16BE(42, 2)
  tiff.writeUInt32BE(8, 4)
  tiff.writeUInt16BE(1, 8)
  tiff.writeUInt16BE(0x0112, 10)
  tiff.writeUInt16BE(3, 12)
  tiff.writeUInt32BE(1, 14)
  tiff.writeUInt16BE(orientation, 18)
  return tiff
}

/** Whether an orientation needs keeping (1 is upright; anything else out of range is ignored). */
const turned = (orientation: number | undefined): orientation is number => orientation !== undefined && orientation >= 2 && orientation <= 8

/** The Orientation tag (0x0112) of a TIFF block as EXIF holds it, if it has a valid one. */
export function orientationIn(block: Buffer): number | undefined {
  // Some writers put EXIF's JPEG header in front of the TIFF block in PNG and WebP too.
  const tiff = block.toString('latin1', 0, 6) === 'Exif\0\0' ? block.subarray(6) : block
  if (tiff.length < 8) return undefined
  const order = tiff.toString('latin1', 0, 2)
  if (order !== 'II' && order !== 'MM') return undefined
  const little = order === 'II'
  const u16 = (at: number) => (at + 2 <= tiff.length ? (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at)) : undefined)
  const u32 = (at: number) => (at + 4 <= tiff.length ? (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at)) : undefined)
  const ifd = u32(4)
  const count = ifd === undefined ? undefined : u16(ifd)
  if (ifd === undefined || count === undefined) return undefined
  for (let entry = 0; entry < count; entry++) {
    const at = ifd + 2 + entry * 12
    if (u16(at) !== 0x0112) continue
    const value = u16(at) === undefined || u16(at + 2) !== 3 ? undefined : u16(at + 8)
    return value !== undefined && value >= 1 && value <= 8 ? value : undefined
  }
  return undefined
}

export function stripMetadata(data: Buffer, format: ImageFormat): Buffer {
  switch (format) {
    case 'jpeg':
      return stripJpeg(data)
    case 'png':
      return stripPng(data)
    case 'gif':
      return stripGif(data)
    case 'webp':
      return stripWebp(data)
  }
}

// JPEG: markers and their segments (ITU T.81, B.1). After a scan's header come entropy-coded
// bytes, where 0xFF is followed by 0x00 (a stuffed byte) or a restart marker; any other marker
// ends the scan.
const JPEG_KEPT_APP: Record<number, string> = { 0xe0: 'JFIF\0', 0xe2: 'ICC_PROFILE\0', 0xee: 'Adobe' }
const JFXX = 'JFXX\0'

const EXIF_HEADER = 'Exif\0\0'

/** The orientation in a JPEG's EXIF segment, looked for among the segments before the first scan. */
function jpegOrientation(data: Buffer): number | undefined {
  let at = 2
  while (at + 4 <= data.length && data[at] === 0xff) {
    const marker = data[at + 1]!
    if (marker === 0xda || marker === 0xd9) return undefined
    const length = data.readUInt16BE(at + 2)
    if (marker === 0xe1 && data.toString('latin1', at + 4, at + 10) === EXIF_HEADER) return orientationIn(data.subarray(at + 10, at + 2 + length))
    at += 2 + length
  }
  return undefined
}

function stripJpeg(data: Buffer): Buffer {
  if (data.length < 4 || data[0] !== 0xff || data[1] !== 0xd8) malformed('no JPEG start of image')
  const parts: Buffer[] = [data.subarray(0, 2)]
  const orientation = jpegOrientation(data)
  const exif = turned(orientation) ? jpegSegment(0xe1, Buffer.concat([Buffer.from(EXIF_HEADER, 'latin1'), orientationExif(orientation)])) : undefined
  let exifPlaced = exif === undefined
  let at = 2
  for (;;) {
    if (at >= data.length) malformed('the JPEG ends before its end of image')
    if (data[at] !== 0xff) malformed('a JPEG segment does not start with a marker')
    while (data[at] === 0xff) at++
    const marker = data[at++]
    if (marker === undefined) malformed('the JPEG ends inside a marker')
    if (marker === 0xd9) {
      parts.push(Buffer.from([0xff, 0xd9]))
      break
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      parts.push(Buffer.from([0xff, marker!]))
      continue
    }
    if (at + 2 > data.length) malformed('the JPEG ends inside a segment length')
    const length = data.readUInt16BE(at)
    if (length < 2 || at + length > data.length) malformed('a JPEG segment runs past the end')
    const segment = data.subarray(at - 2, at + length)
    at += length
    const isApp = marker! >= 0xe0 && marker! <= 0xef
    if (isApp || marker === 0xfe) {
      const signature = JPEG_KEPT_APP[marker!]
      const body = segment.subarray(4)
      const kept = signature !== undefined && (body.subarray(0, signature.length).toString('latin1') === signature || (marker === 0xe0 && body.subarray(0, JFXX.length).toString('latin1') === JFXX))
      if (kept) parts.push(segment)
      // The orientation goes after JFIF's APP0, which must come first.
      if (!exifPlaced && !(kept && marker === 0xe0)) {
        parts.push(exif!)
        exifPlaced = true
      }
      continue
    }
    if (!exifPlaced) {
      parts.push(exif!)
      exifPlaced = true
    }
    parts.push(segment)
    if (marker === 0xda) {
      const end = scanEnd(data, at)
      parts.push(data.subarray(at, end))
      at = end
    }
  }
  return Buffer.concat(parts)
}

function jpegSegment(marker: number, body: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0])
  head.writeUInt16BE(body.length + 2, 2)
  return Buffer.concat([head, body])
}

/** Where a scan's entropy-coded bytes end: at the first marker that is not a stuffed byte or a restart. */
function scanEnd(data: Buffer, from: number): number {
  let at = from
  for (;;) {
    const next = data.indexOf(0xff, at)
    if (next < 0 || next + 1 >= data.length) return malformed('the JPEG ends inside a scan')
    const following = data[next + 1]!
    if (following === 0x00 || (following >= 0xd0 && following <= 0xd7) || following === 0xff) {
      at = following === 0xff ? next + 1 : next + 2
      continue
    }
    return next
  }
}

// PNG: a signature, then chunks (length, type, data, CRC) up to IEND. Critical chunks (an upper
// case first letter) are all kept; of the ancillary ones, those that change how the picture looks.
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const PNG_KEPT_ANCILLARY = new Set(['tRNS', 'gAMA', 'cHRM', 'sRGB', 'iCCP', 'sBIT', 'bKGD', 'pHYs', 'acTL', 'fcTL', 'fdAT', 'cICP', 'mDCv', 'cLLi'])

/** The orientation in a PNG's eXIf chunk. */
function pngOrientation(data: Buffer): number | undefined {
  let at = 8
  while (at + 12 <= data.length) {
    const length = data.readUInt32BE(at)
    const type = data.toString('latin1', at + 4, at + 8)
    if (type === 'eXIf') return orientationIn(data.subarray(at + 8, at + 8 + length))
    if (type === 'IEND') return undefined
    at += 12 + length
  }
  return undefined
}

function stripPng(data: Buffer): Buffer {
  if (data.length < 8 || !data.subarray(0, 8).equals(PNG_SIGNATURE)) malformed('no PNG signature')
  const parts: Buffer[] = [PNG_SIGNATURE]
  const orientation = pngOrientation(data)
  let exifPlaced = !turned(orientation)
  let at = 8
  for (;;) {
    if (at + 12 > data.length) malformed('the PNG ends before IEND')
    const length = data.readUInt32BE(at)
    const type = data.toString('latin1', at + 4, at + 8)
    if (!/^[A-Za-z]{4}$/.test(type)) malformed('a PNG chunk has no valid type')
    const end = at + 12 + length
    if (end > data.length) malformed('a PNG chunk runs past the end')
    const chunk = data.subarray(at, end)
    at = end
    if (!exifPlaced && (type === 'IDAT' || type === 'IEND' || type === 'acTL' || type === 'fcTL')) {
      parts.push(pngChunk('eXIf', orientationExif(orientation!)))
      exifPlaced = true
    }
    const critical = type.charCodeAt(0) < 0x61
    if (critical || PNG_KEPT_ANCILLARY.has(type)) parts.push(chunk)
    if (type === 'IEND') break
  }
  return Buffer.concat(parts)
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
})()

function crc32(bytes: Buffer): number {
  let c = 0xffffffff
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

function pngChunk(type: string, body: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), body])
  const out = Buffer.alloc(12 + body.length)
  out.writeUInt32BE(body.length, 0)
  typed.copy(out, 4)
  out.writeUInt32BE(crc32(typed), 8 + body.length)
  return out
}

// GIF: a header, the screen descriptor and its colour table, then blocks: images (with their
// data as sub-blocks) and extensions (sub-blocks too) until the trailer. Comments and application
// blocks (XMP travels in one) go, but for animation loops and a colour profile.
const GIF_KEPT_APPLICATIONS = new Set(['NETSCAPE2.0', 'ANIMEXTS1.0', 'ICCRGBG1012'])

function stripGif(data: Buffer): Buffer {
  const header = data.toString('latin1', 0, 6)
  if (header !== 'GIF87a' && header !== 'GIF89a') malformed('no GIF header')
  if (data.length < 13) malformed('the GIF ends inside its screen descriptor')
  let at = 13 + colourTableBytes(data[10]!)
  if (at > data.length) malformed('the GIF ends inside its colour table')
  const parts: Buffer[] = [data.subarray(0, at)]
  for (;;) {
    const introducer = data[at]
    if (introducer === undefined) return malformed('the GIF ends before its trailer')
    if (introducer === 0x3b) {
      parts.push(data.subarray(at, at + 1))
      break
    }
    const start = at
    if (introducer === 0x2c) {
      if (at + 10 > data.length) malformed('the GIF ends inside an image descriptor')
      at += 10 + colourTableBytes(data[at + 9]!) + 1
      at = afterSubBlocks(data, at)
      parts.push(data.subarray(start, at))
      continue
    }
    if (introducer !== 0x21) malformed('an unknown GIF block')
    const label = data[at + 1]
    at = afterSubBlocks(data, at + 2)
    const identifier = data.toString('latin1', start + 3, start + 14)
    const kept = label === 0xf9 || label === 0x01 || (label === 0xff && data[start + 2] === 11 && GIF_KEPT_APPLICATIONS.has(identifier))
    if (kept) parts.push(data.subarray(start, at))
  }
  return Buffer.concat(parts)
}

const colourTableBytes = (flags: number) => (flags & 0x80 ? 3 * 2 ** ((flags & 0x07) + 1) : 0)

function afterSubBlocks(data: Buffer, from: number): number {
  let at = from
  for (;;) {
    const size = data[at]
    if (size === undefined) return malformed('the GIF ends inside a block')
    at += 1 + size
    if (size === 0) return at
    if (at > data.length) malformed('a GIF block runs past the end')
  }
}

// WebP: a RIFF container of chunks (FourCC, little-endian size, data padded to an even length).
// VP8X's flags say which optional chunks follow; those for EXIF and XMP are cleared with them.
const WEBP_KEPT = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH', 'ANIM', 'ANMF', 'ICCP'])
const VP8X_EXIF = 0x08
const VP8X_XMP = 0x04

function stripWebp(data: Buffer): Buffer {
  if (data.length < 12 || data.toString('latin1', 0, 4) !== 'RIFF' || data.toString('latin1', 8, 12) !== 'WEBP') malformed('no WebP header')
  const end = Math.min(data.length, 8 + data.readUInt32LE(4))
  const chunks: Buffer[] = []
  let extended: Buffer | undefined
  let orientation: number | undefined
  let at = 12
  while (at + 8 <= end) {
    const type = data.toString('latin1', at, at + 4)
    const size = data.readUInt32LE(at + 4)
    const next = at + 8 + size + (size % 2)
    if (at + 8 + size > end) malformed('a WebP chunk runs past the end')
    if (type === 'EXIF') orientation = orientationIn(data.subarray(at + 8, at + 8 + size))
    if (WEBP_KEPT.has(type)) {
      const chunk = Buffer.from(data.subarray(at, Math.min(next, end)))
      if (type === 'VP8X') extended = chunk
      chunks.push(chunk)
    }
    at = next
  }
  if (chunks.length === 0) malformed('a WebP without an image')
  // The orientation can only be said in the extended format, which a simple WebP does not have.
  const keepOrientation = turned(orientation) && extended !== undefined
  if (extended) extended[8] = (extended[8]! & ~(VP8X_EXIF | VP8X_XMP)) | (keepOrientation ? VP8X_EXIF : 0)
  if (keepOrientation) {
    const exif = orientationExif(orientation!)
    const head = Buffer.alloc(8)
    head.write('EXIF', 0, 'latin1')
    head.writeUInt32LE(exif.length, 4)
    chunks.push(head, exif)
  }
  const body = Buffer.concat(chunks)
  const riff = Buffer.alloc(12)
  riff.write('RIFF', 0, 'latin1')
  riff.writeUInt32LE(body.length + 4, 4)
  riff.write('WEBP', 8, 'latin1')
  return Buffer.concat([riff, body])
}
