// The S3 driver: any S3-compatible store through the AWS SDK. Streams of unknown length go up as
// multipart uploads (lib-storage), so a large file is never held whole in memory. Presigned URLs
// let clients put and get bytes without passing through the service.
import type { Readable } from 'node:stream'

import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'

import type { StorageSettings } from '../settings.js'
import type { BlobStore, ByteRange, ObjectRead, PresignedPut, StoredObject } from './blob-store.js'
import { assertKey } from './blob-store.js'

type S3Settings = Extract<StorageSettings, { driver: 's3' }>

const missing = (error: unknown): boolean =>
  error instanceof S3ServiceException && (error.$metadata.httpStatusCode === 404 || error.name === 'NoSuchKey' || error.name === 'NotFound')

export class S3BlobStore implements BlobStore {
  private readonly client: S3Client
  private readonly bucket: string

  constructor(settings: S3Settings) {
    this.bucket = settings.bucket
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.accessKeyId && settings.secretAccessKey ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } : undefined,
      // Otherwise the SDK signs a checksum of an empty body into presigned PUTs, which S3 then refuses.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    })
  }

  async put(key: string, body: Readable | Buffer, contentType: string, signal?: AbortSignal): Promise<void> {
    assertKey(key)
    signal?.throwIfAborted()
    if (Buffer.isBuffer(body)) {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType, ContentLength: body.length }), { abortSignal: signal })
      return
    }
    const upload = new Upload({ client: this.client, params: { Bucket: this.bucket, Key: key, Body: body, ContentType: contentType }, queueSize: 2 })
    // Aborted, the upload's requests stop and done() rejects at once; a multipart upload never completed stores nothing under the key.
    const stop = () => void upload.abort()
    signal?.addEventListener('abort', stop, { once: true })
    try {
      await upload.done()
    } finally {
      signal?.removeEventListener('abort', stop)
    }
  }

  async get(key: string, range?: ByteRange): Promise<ObjectRead | undefined> {
    assertKey(key)
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range && `bytes=${range.start}-${range.end}` }))
      const total = answer.ContentRange ? Number(answer.ContentRange.split('/')[1]) : Number(answer.ContentLength)
      return { body: answer.Body as Readable, size: total }
    } catch (error) {
      if (missing(error)) return undefined
      throw error
    }
  }

  async head(key: string): Promise<StoredObject | undefined> {
    assertKey(key)
    try {
      const answer = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }))
      return { key, size: Number(answer.ContentLength), lastModified: answer.LastModified ?? new Date(0) }
    } catch (error) {
      if (missing(error)) return undefined
      throw error
    }
  }

  async copy(from: string, to: string): Promise<boolean> {
    assertKey(from)
    assertKey(to)
    try {
      // Keys are the service's own (letters, digits, '.', '_', '-', '/'): nothing in them needs more than encodeURI.
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: to, CopySource: encodeURI(`${this.bucket}/${from}`) }))
      return true
    } catch (error) {
      if (missing(error)) return false
      throw error
    }
  }

  async remove(key: string): Promise<void> {
    assertKey(key)
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }))
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    let token: string | undefined
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }))
      for (const item of page.Contents ?? []) {
        if (item.Key) yield { key: item.Key, size: Number(item.Size ?? 0), lastModified: item.LastModified ?? new Date(0) }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (token)
  }

  readonly presigner = {
    put: async (key: string, options: { contentType: string; size: number; expiresSeconds: number }): Promise<PresignedPut> => {
      assertKey(key)
      const command = new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: options.contentType, ContentLength: options.size })
      // Content-Type and Content-Length are signed: a store that checks signatures refuses other bytes.
      const url = await getSignedUrl(this.client, command, { expiresIn: options.expiresSeconds, signableHeaders: new Set(['content-type', 'content-length']) })
      return { url, headers: { 'content-type': options.contentType } }
    },
    get: (key: string, options: { expiresSeconds: number; contentType: string; disposition: string }): Promise<string> => {
      assertKey(key)
      const command = new GetObjectCommand({ Bucket: this.bucket, Key: key, ResponseContentType: options.contentType, ResponseContentDisposition: options.disposition })
      return getSignedUrl(this.client, command, { expiresIn: options.expiresSeconds })
    },
  }

  close(): void {
    this.client.destroy()
  }
}
