// A real S3-compatible server on loopback (s3rver), in the test process: one bucket per test file,
// its objects on a temporary directory. It speaks S3's REST protocol, presigned URLs and multipart
// uploads; it does not check signatures, so signing stays the SDK's part.
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

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

export async function startS3Server(): Promise<TestS3Server> {
  const directory = await mkdtemp(path.join(tmpdir(), 'ups-s3-'))
  const bucket = `test-${randomBytes(6).toString('hex')}`
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket, configs: [CORS] }] })
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
