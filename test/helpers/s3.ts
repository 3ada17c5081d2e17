// A real S3-compatible server on loopback (s3rver), in the test process: one bucket per test file,
// its objects on a temporary directory. It speaks S3's REST protocol, presigned URLs and multipart
// uploads; it does not check signatures, so signing stays the SDK's part.
import { createHash, randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'

import S3rver from 's3rver'

export interface TestS3Server {
  endpoint: string
  bucket: string
  /** The settings that point the service at this bucket. */
  env: Record<string, string>
  close(): Promise<void>
}

// A browser on another origin puts bytes straight into the bucket with a presigned URL.
const CORS = `<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>PUT</AllowedMethod><AllowedMethod>GET</AllowedMethod>
<AllowedHeader>*</AllowedHeader><MaxAgeSeconds>60</MaxAgeSeconds></CORSRule></CORSConfiguration>`

/** What s3rver's filesystem store is asked to put (its own type is not exported). */
interface PutRequest {
  bucket: string
  key: string
  content: Buffer | Readable
  metadata: Record<string, string>
}

interface FilesystemStore {
  getResourcePath(bucket: string, key: string, resource: 'object'): string
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>
  putObject(object: PutRequest): Promise<{ size: number; md5: string }>
}

/**
 * s3rver 3.7.1 answers a PUT once the bytes are handed to the object's file, not once they are in it
 * (a Buffer resolves right after `end()`, a stream when its hashing step finishes), so a GET right
 * after the answer could read a short object. This put answers when the file is written, as S3 does.
 */
function putWhenWritten(store: FilesystemStore): void {
  store.putObject = async (object) => {
    const objectPath = store.getResourcePath(object.bucket, object.key, 'object')
    await mkdir(path.dirname(objectPath), { recursive: true })
    const md5 = createHash('md5')
    let size = 0
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        md5.update(chunk)
        size += chunk.length
        done(null, chunk)
      },
    })
    const source = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content
    await pipeline(source, counted, createWriteStream(objectPath))
    const digest = md5.digest('hex')
    await store.putMetadata(object.bucket, object.key, object.metadata, digest)
    return { size, md5: digest }
  }
}

export async function startS3Server(): Promise<TestS3Server> {
  const directory = await mkdtemp(path.join(tmpdir(), 'ups-s3-'))
  const bucket = `test-${randomBytes(6).toString('hex')}`
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket, configs: [CORS] }] })
  putWhenWritten((server as unknown as { store: FilesystemStore }).store)
  const { port } = (await server.run()) as { port: number }
  const endpoint = `http://127.0.0.1:${port}`
  return {
    endpoint,
    bucket,
    env: { STORAGE: 's3', S3_ENDPOINT: endpoint, S3_BUCKET: bucket, S3_REGION: 'us-east-1', S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER', S3_FORCE_PATH_STYLE: 'true' },
    async close() {
      await server.close()
      await rm(directory, { recursive: true, force: true })
    },
  }
}
