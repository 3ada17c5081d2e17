// The local driver's stand-in for a presigned PUT: the service's own URL for one upload, signed
// with the secret key and carrying its expiry, so a browser can send the bytes without a token.
import { createHmac, timingSafeEqual } from 'node:crypto'

export class UploadUrls {
  constructor(private readonly secretKey: string) {}

  sign(uploadId: number, expiresAt: number): string {
    return createHmac('sha256', this.secretKey).update(`upload-url:${uploadId}:${expiresAt}`).digest('base64url')
  }

  /** The query string of the upload's URL. */
  query(uploadId: number, expiresAt: number): string {
    return `expires=${expiresAt}&signature=${this.sign(uploadId, expiresAt)}`
  }

  verify(uploadId: number, expiresAt: number, signature: string, now = Date.now()): boolean {
    if (!(expiresAt > now)) return false
    const expected = Buffer.from(this.sign(uploadId, expiresAt))
    const given = Buffer.from(signature)
    return given.length === expected.length && timingSafeEqual(given, expected)
  }
}
