import { Type } from 'typebox'

import { CursorPageEnvelopeSchema, CursorParameter } from '../../api/common/page-envelope.js'
import { PageSize } from '../../api/common/params.schemas.js'
import { ValidationErrorResponse } from '../../api/common/responses.js'
import { PageNumber } from '../../shared/page-number.js'
import { RecordId } from '../../shared/record-id.js'

export const FileIdParams = Type.Object({ file_id: RecordId })
export const UploadIdParams = Type.Object({ upload_id: RecordId })
export const VariantParams = Type.Object({ file_id: RecordId, preset: Type.String({ minLength: 1, maxLength: 32, pattern: '^[a-z0-9_-]+$' }) })

const FileName = Type.String({ minLength: 1, maxLength: 255, pattern: '^[^\\u0000-\\u001f/\\\\]+$', description: 'The name the file is shown and downloaded under (no path).' })

export const FileRead = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    content_type: Type.String({ description: 'Sniffed from the content, never taken from the name or the client.' }),
    size: Type.Integer({ description: 'Bytes as stored (an image without its metadata).' }),
    sha256: Type.String({ description: 'Hex SHA-256 of the stored bytes; the download ETag.' }),
    url: Type.String({ description: 'GET it (with the caller credentials) for the bytes: 302 to a short-lived store URL on S3, the bytes themselves on local disk.' }),
    variants: Type.Record(Type.String(), Type.String(), { description: 'Preset name to URL; images only.' }),
    post_id: Type.Union([Type.Integer(), Type.Null()], { description: 'The post the file is attached to; null when it is its owner\'s alone.' }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'FileRead' },
)

export const FilePage = CursorPageEnvelopeSchema(FileRead, 'FilePage')

export const FileListQuery = Type.Object({ page: PageNumber, limit: PageSize, cursor: Type.Optional(CursorParameter) })

export const UploadCreate = Type.Object(
  {
    name: FileName,
    size: Type.Integer({ minimum: 1, description: 'Exact bytes to be sent; reserved against the quota now.' }),
    content_type: Type.String({ minLength: 3, maxLength: 100, pattern: '^[a-z0-9.+-]+/[a-z0-9.+-]+$' }),
  },
  { additionalProperties: false, title: 'UploadCreate' },
)

export const UploadTargetRead = Type.Object(
  {
    upload_id: Type.Integer(),
    url: Type.String({ description: 'Where to send the bytes: a presigned URL of the store (S3), or the service\'s own signed URL (local disk). No credentials needed.' }),
    method: Type.Literal('PUT'),
    headers: Type.Record(Type.String(), Type.String(), { description: 'Headers the PUT must carry, as given.' }),
    expires_at: Type.String({ format: 'date-time' }),
  },
  { title: 'UploadTarget' },
)

export const UploadContentQuery = Type.Object({
  expires: Type.Integer({ minimum: 0 }),
  signature: Type.String({ minLength: 43, maxLength: 43 }),
})

export const UsageRead = Type.Object(
  {
    bytes: Type.Integer({ description: 'Bytes of completed files.' }),
    files: Type.Integer(),
    limit_bytes: Type.Integer({ description: "The caller's tier quota, or the default." }),
    limit_files: Type.Integer(),
  },
  { title: 'StorageUsage' },
)

/** A 422 of a route that takes images: a broken field rule, or (image_too_large) an image with more pixels than allowed. */
export const ImageRefusedResponse = Type.Object(
  {
    ...ValidationErrorResponse.properties,
    code: Type.Union([Type.Literal('validation_failed'), Type.Literal('image_too_large')], {
      description: '`validation_failed`, or `image_too_large` for an image with more pixels than FILE_MAX_PIXELS (refused before it is decoded).',
    }),
  },
  { title: 'ImageRefusedResponse', description: 'Validation failed, or the image is too large' },
)
