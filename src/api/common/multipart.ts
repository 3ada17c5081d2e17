// Reading multipart bodies (@fastify/multipart) the same way on every route that takes a file.
import { DomainError, MALFORMED_MULTIPART } from '../../shared/errors.js'

/** Room for multipart headers and boundaries around the file itself. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024

/**
 * The multipart parser reports limits with FST_ codes (mapped by the error handler) and broken
 * bodies (no boundary, truncated parts, bad part headers) with plain errors: those are the
 * client's fault, so they answer 400 rather than 500.
 */
export async function readingMultipart<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (typeof code === 'string' && code.startsWith('FST_')) throw error
    if (error instanceof DomainError) throw error
    throw new DomainError('invalid', MALFORMED_MULTIPART, { code: 'malformed_multipart' })
  }
}
