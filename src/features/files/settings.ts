// The files slice's settings (docs/configuration.md, Files and storage).
import type { Env } from '../../shared/settings.js'
import { boolean, ConfigError, integer, oneOf, read, url } from '../../shared/settings.js'

const MIB = 1024 * 1024

/** Where file bytes live: a directory under DATA_DIR, or an S3-compatible bucket. */
export type StorageSettings =
  | { driver: 'local'; directory: string }
  | { driver: 's3'; endpoint: string | undefined; region: string; bucket: string; accessKeyId: string | undefined; secretAccessKey: string | undefined; forcePathStyle: boolean }

/** A named image variant: a box to fit in, and how (cover crops to fill it; inside keeps the whole image). */
export interface ImagePreset {
  width: number
  height: number | undefined
  fit: 'cover' | 'inside'
}

export interface FileSettings {
  storage: StorageSettings
  /** FILE_MAX_BYTES: the largest file sent through the service (POST /files, the local upload endpoint). */
  maxBytes: number
  /** FILE_UPLOAD_MAX_BYTES: the largest file sent straight to the store (POST /uploads on S3). */
  uploadMaxBytes: number
  /** FILE_TYPES: the content types a file may have, as sniffed from its bytes. */
  types: readonly string[]
  /** FILE_IMAGE_PRESETS: the only variant sizes there are. */
  presets: ReadonlyMap<string, ImagePreset>
  /** FILE_MAX_PIXELS: an image larger than this (width × height) is refused before it is decoded. */
  maxPixels: number
  /** UPLOAD_EXPIRY_SECONDS: how long an upload may take before it is abandoned and its reservation released. */
  uploadExpirySeconds: number
  /** FILE_URL_SECONDS: the life of a presigned download URL (S3). */
  urlSeconds: number
  /** FILE_UPLOAD_URL_SECONDS: the life of a presigned upload URL (S3), at most the upload's own. */
  uploadUrlSeconds: number
  /** STORAGE_QUOTA_BYTES and STORAGE_QUOTA_FILES: the quota of users whose tier sets none. */
  defaultQuota: { bytes: number; files: number }
}

/** What the sniffer can name and the service can serve safely: never a type a browser runs (HTML, SVG, XML). */
export const SERVABLE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf', 'text/plain', 'application/zip', 'audio/mpeg', 'video/mp4'] as const
const DEFAULT_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf', 'text/plain']
const DEFAULT_PRESETS = 'thumb:256x256:cover,medium:1280'

function fileTypes(env: Env): string[] {
  const raw = read(env, 'FILE_TYPES')
  if (raw === undefined) return DEFAULT_TYPES
  const types = raw.split(',').map((type) => type.trim().toLowerCase()).filter(Boolean)
  const unsafe = types.filter((type) => !(SERVABLE_TYPES as readonly string[]).includes(type))
  if (unsafe.length > 0) throw new ConfigError(`FILE_TYPES may list only ${SERVABLE_TYPES.join(', ')}; not ${unsafe.join(', ')}`)
  if (types.length === 0) throw new ConfigError('FILE_TYPES must list at least one type')
  return types
}

/** `name:WIDTH[xHEIGHT][:cover|inside]`, comma-separated. */
export function imagePresets(raw: string): Map<string, ImagePreset> {
  const presets = new Map<string, ImagePreset>()
  for (const entry of raw.split(',').map((part) => part.trim()).filter(Boolean)) {
    const match = /^([a-z0-9_-]{1,32}):(\d{1,4})(?:x(\d{1,4}))?(?::(cover|inside))?$/.exec(entry)
    if (!match) throw new ConfigError(`FILE_IMAGE_PRESETS: "${entry}" is not name:WIDTH[xHEIGHT][:cover|inside]`)
    const [, name, width, height, fit] = match as unknown as [string, string, string, string | undefined, 'cover' | 'inside' | undefined]
    if (Number(width) < 1 || (height !== undefined && Number(height) < 1)) throw new ConfigError(`FILE_IMAGE_PRESETS: "${entry}" needs sizes of at least 1`)
    presets.set(name, { width: Number(width), height: height === undefined ? undefined : Number(height), fit: fit ?? (height === undefined ? 'inside' : 'cover') })
  }
  return presets
}

function storageSettings(env: Env, dataDir: string): StorageSettings {
  const driver = oneOf(env, 'STORAGE', ['local', 's3'] as const, 'local')
  if (driver === 'local') return { driver, directory: dataDir }
  const bucket = read(env, 'S3_BUCKET')
  if (bucket === undefined) throw new ConfigError('S3_BUCKET is required when STORAGE=s3')
  const accessKeyId = read(env, 'S3_ACCESS_KEY_ID')
  const secretAccessKey = read(env, 'S3_SECRET_ACCESS_KEY')
  // Both or neither: neither leaves the SDK's own chain (instance roles, AWS_PROFILE).
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together')
  return {
    driver,
    endpoint: url(env, 'S3_ENDPOINT', ['http:', 'https:']),
    region: read(env, 'S3_REGION') ?? 'us-east-1',
    bucket,
    accessKeyId,
    secretAccessKey,
    forcePathStyle: boolean(env, 'S3_FORCE_PATH_STYLE', false),
  }
}

export function fileSettings(env: Env, dataDir: string): FileSettings {
  const maxBytes = integer(env, 'FILE_MAX_BYTES', 25 * MIB, 1024, 1024 * MIB)
  const presets = imagePresets(read(env, 'FILE_IMAGE_PRESETS') ?? DEFAULT_PRESETS)
  return {
    storage: storageSettings(env, dataDir),
    maxBytes,
    uploadMaxBytes: integer(env, 'FILE_UPLOAD_MAX_BYTES', Math.max(maxBytes, 1024 * MIB), maxBytes, 5 * 1024 * 1024 * MIB),
    types: fileTypes(env),
    presets,
    maxPixels: integer(env, 'FILE_MAX_PIXELS', 50_000_000, 1, 1_000_000_000),
    uploadExpirySeconds: integer(env, 'UPLOAD_EXPIRY_SECONDS', 3600, 2, 7 * 24 * 3600),
    urlSeconds: integer(env, 'FILE_URL_SECONDS', 300, 10, 7 * 24 * 3600),
    uploadUrlSeconds: integer(env, 'FILE_UPLOAD_URL_SECONDS', 600, 10, 7 * 24 * 3600),
    defaultQuota: {
      bytes: integer(env, 'STORAGE_QUOTA_BYTES', 1024 * MIB, 0, Number.MAX_SAFE_INTEGER),
      files: integer(env, 'STORAGE_QUOTA_FILES', 10_000, 0, 100_000_000),
    },
  }
}
