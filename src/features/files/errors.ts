// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const filesErrorCodes = {
  file_not_found: 'No file with this id that the caller may read, or no such variant of it (404; never 403).',
  range_not_satisfiable: 'The Range header asks for bytes the file does not have; `Content-Range` gives its size (416).',
  upload_not_found: 'No upload in progress with this id started by the caller: it was completed, abandoned or has expired (404).',
  upload_url_invalid: 'The upload URL is not one the service signed, or it has expired (403).',
  upload_incomplete: 'The store does not hold all the bytes the upload declared (yet): send them again, then complete (409).',
  unsupported_file_type: "The file's content is of a type FILE_TYPES does not allow, or is not what its name or declared type says (415).",
  image_too_large: 'The image has more pixels than FILE_MAX_PIXELS allows; it was not decoded (422).',
  quota_exceeded: "The caller's storage quota (bytes or files, their tier's or the default) leaves no room for this upload (413).",
  file_attached_elsewhere: 'A file in `attachments` belongs to another post: detach it there first (409).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof filesErrorCodes, string> {}
}
