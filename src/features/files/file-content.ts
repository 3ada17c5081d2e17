// What a file is, from its bytes: the type is sniffed (file-type) and checked against the
// allow-list, the name's extension and the declared type. Images go through the one image intake
// (images/image-intake.ts); variants are rendered from presets.
import type * as FileTypes from 'file-type'

import { DomainError } from '../../shared/errors.js'
import { imageTooLarge, unreadableImage } from './images/image-intake.js'
import { loadSharp, withImageSlot } from './images/sharp.js'
import type { ImagePreset } from './settings.js'

/** Enough leading bytes for every signature file-type knows. */
export const SNIFF_BYTES = 4100

export const unsupportedFileType = (detail: string) => new DomainError('unsupported', detail, { code: 'unsupported_file_type' })

/** A type the setting does not list: the refusal names FILE_TYPES and what it allows. */
export const typeNotAllowed = (type: string | undefined, allowed: readonly string[]) =>
  unsupportedFileType(`Files of type ${type ?? 'unknown'} are not accepted: FILE_TYPES allows ${allowed.join(', ')}`)

/** What a name's extension claims; a file whose bytes say otherwise is refused. */
const BY_EXTENSION: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', jpe: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif',
  pdf: 'application/pdf', txt: 'text/plain', text: 'text/plain', md: 'text/plain', csv: 'text/plain', log: 'text/plain',
  svg: 'image/svg+xml', svgz: 'image/svg+xml', html: 'text/html', htm: 'text/html', xhtml: 'text/html', xml: 'application/xml', js: 'text/javascript', mjs: 'text/javascript',
  zip: 'application/zip', mp3: 'audio/mpeg', mp4: 'video/mp4', exe: 'application/x-msdownload',
}

const ALIASES: Record<string, string> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg', 'application/x-pdf': 'application/pdf', 'image/x-png': 'image/png' }

const normalised = (contentType: string): string => {
  const bare = contentType.split(';')[0]!.trim().toLowerCase()
  return ALIASES[bare] ?? bare
}

/** Text is UTF-8 without NUL bytes; text that opens like markup is markup (a browser would run it), never plain text. */
function textType(head: Buffer, complete: boolean): string | undefined {
  if (head.includes(0)) return undefined
  // A multi-byte character may be cut at the end of the head: only the bytes before the last few must decode.
  const sample = complete ? head : head.subarray(0, Math.max(0, head.length - 4))
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample)
  } catch {
    return undefined
  }
  const start = head.toString('utf8', 0, 512).replace(/^\uFEFF/, '').trimStart().toLowerCase()
  // A tag, a declaration or a processing instruction ("<3" is text).
  if (/^<[a-z!?/]/.test(start)) return start.includes('<svg') ? 'image/svg+xml' : 'text/html'
  return 'text/plain'
}

// file-type (with its readers) is loaded with the first upload, not at start.
let fileTypes: Promise<typeof FileTypes> | undefined

/** The type the leading bytes say; `complete` when they are the whole file. */
export async function sniff(head: Buffer, complete: boolean): Promise<string | undefined> {
  const detected = await (await (fileTypes ??= import('file-type'))).fileTypeFromBuffer(head)
  if (detected) return detected.mime === 'application/xml' ? textType(head, complete) ?? detected.mime : detected.mime
  return head.length === 0 ? undefined : textType(head, complete)
}

export interface Claims {
  name: string
  /** What the client said the type was; octet-stream or nothing claims nothing. */
  declaredType?: string
}

/** The sniffed type, when it is allowed and agrees with the name and the declared type; else 415. */
export function acceptedType(sniffed: string | undefined, claims: Claims, allowed: readonly string[]): string {
  if (sniffed === undefined || !allowed.includes(sniffed)) throw typeNotAllowed(sniffed, allowed)
  const extension = /\.([A-Za-z0-9]{1,8})$/.exec(claims.name)?.[1]?.toLowerCase()
  const named = extension === undefined ? undefined : BY_EXTENSION[extension]
  if (named !== undefined && named !== sniffed) throw unsupportedFileType(`The file's content is ${sniffed}, not what its name says`)
  const declared = claims.declaredType === undefined ? undefined : normalised(claims.declaredType)
  if (declared !== undefined && declared !== 'application/octet-stream' && declared !== sniffed) {
    throw unsupportedFileType(`The file's content is ${sniffed}, not ${declared}`)
  }
  return sniffed
}

export const VARIANT_TYPE = 'image/webp'

/** A preset's variant of an image, as WebP. */
export async function variantOf(data: Buffer, preset: ImagePreset, maxPixels: number): Promise<Buffer> {
  const sharp = await loadSharp()
  try {
    return await withImageSlot(() =>
      sharp(data, { limitInputPixels: maxPixels, failOn: 'error' })
        .autoOrient()
        .resize({ width: preset.width, height: preset.height, fit: preset.fit, withoutEnlargement: true })
        .webp()
        .toBuffer(),
    )
  } catch (error) {
    if (/pixel limit/i.test(error instanceof Error ? error.message : '')) throw imageTooLarge(maxPixels)
    throw unreadableImage()
  }
}
