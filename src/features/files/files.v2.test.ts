// Files through HTTP on both storage drivers (local disk, and a real S3 server on loopback) and
// both databases: uploads by form and straight to the store, what is refused, images cleaned of
// metadata, variants, reading under the post's rule, quotas, and removal through the outbox.
import { createHash } from 'node:crypto'

import type { LightMyRequestResponse } from 'fastify'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import { decompressionBombPng, jpegWithGps, MINIMAL_PDF, png, smallPngThatInflates, SVG_WITH_SCRIPT } from '../../../test/helpers/images.js'
import { multipart } from '../../../test/helpers/multipart.js'
import type { TestS3Server } from '../../../test/helpers/s3.js'
import { startS3Server } from '../../../test/helpers/s3.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { drained } from '../../../test/helpers/wait.js'
import { createBlobStore } from './storage/index.js'

interface FileBody {
  id: number
  name: string
  content_type: string
  size: number
  sha256: string
  url: string
  variants: Record<string, string>
  post_id: number | null
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex')

describe.each(['local', 's3'] as const)('files on the %s driver', (driver) => {
  let t: TestApp
  let s3: TestS3Server | undefined
  let owner: LoggedIn
  let other: LoggedIn
  let superuser: LoggedIn

  beforeAll(async () => {
    s3 = driver === 's3' ? await startS3Server() : undefined
    t = await createTestApp({ ...(s3?.env ?? {}), FILE_TYPES: 'image/png,image/jpeg,image/gif,image/webp,application/pdf,text/plain' })
    owner = await seedAndLogin(t.app)
    other = await seedAndLogin(t.app)
    superuser = await seedAndLogin(t.app, {}, { superuser: true })
  })
  afterAll(async () => {
    await t.close()
    await s3?.close()
  })

  const upload = (who: LoggedIn, filename: string, contentType: string, data: Buffer) => {
    const form = multipart([{ field: 'file', filename, contentType, data }])
    return t.app.inject({ method: 'POST', url: `${V2}/files`, payload: form.payload, headers: { ...form.headers, ...who.headers } })
  }

  const uploaded = async (who: LoggedIn, filename: string, contentType: string, data: Buffer): Promise<FileBody> => {
    const response = await upload(who, filename, contentType, data)
    expect(response.statusCode, response.body).toBe(201)
    return response.json<FileBody>()
  }

  /** The bytes behind a file URL: followed through the store's presigned URL on S3. */
  const download = async (url: string, who?: LoggedIn, headers: Record<string, string> = {}): Promise<{ status: number; body: Buffer; headers: Record<string, unknown>; response: LightMyRequestResponse }> => {
    const response = await t.app.inject({ url, headers: { ...(who?.headers ?? {}), ...headers } })
    if (response.statusCode !== 302) return { status: response.statusCode, body: response.rawPayload, headers: response.headers, response }
    expect(response.headers['cache-control']).toBe('private, no-cache')
    const stored = await fetch(String(response.headers.location), { headers })
    return { status: stored.status, body: Buffer.from(await stored.arrayBuffer()), headers: Object.fromEntries(stored.headers), response }
  }

  const usage = async (who: LoggedIn) => (await t.app.inject({ url: `${V2}/users/me/usage`, headers: who.headers })).json<{ bytes: number; files: number; limit_bytes: number; limit_files: number }>()

  it('stores a text file as sent, with its sniffed type, size and hash, and serves it back', async () => {
    const data = Buffer.from('hello, files\n')
    const file = await uploaded(owner, 'notes.txt', 'text/plain', data)
    expect(file).toMatchObject({ name: 'notes.txt', content_type: 'text/plain', size: data.length, sha256: sha256(data), post_id: null, variants: {} })
    expect(file.url).toBe(`${V2}/files/${file.id}`)
    const got = await download(file.url, owner)
    expect(got.status).toBe(200)
    expect(got.body.equals(data)).toBe(true)
    expect(String(got.headers['content-type'])).toMatch(/^text\/plain/)
  })

  it('removes EXIF and GPS from an image before storing it', async () => {
    const original = await jpegWithGps()
    expect((await sharp(original).metadata()).exif).toBeDefined()
    const file = await uploaded(owner, 'holiday.jpg', 'image/jpeg', original)
    expect(file.content_type).toBe('image/jpeg')
    expect(Object.keys(file.variants).sort()).toEqual(['medium', 'thumb'])
    const got = await download(file.url, owner)
    expect(got.status).toBe(200)
    const stored = await sharp(got.body).metadata()
    expect(stored.exif).toBeUndefined()
    expect(stored.width).toBe(640)
    expect(got.body.includes(Buffer.from('TestCam'))).toBe(false)
    expect(sha256(got.body)).toBe(file.sha256)
    expect(file.size).toBe(got.body.length)
  })

  it('stores a cleaned image no larger than it came, its pixels unchanged', async () => {
    const small = await smallPngThatInflates()
    expect(small.length).toBeLessThan(10_000)
    const file = await uploaded(owner, 'pattern.png', 'image/png', Buffer.concat([small, Buffer.from('hidden after the end')]))
    expect(file.size).toBeLessThanOrEqual(small.length)
    const got = await download(file.url, owner)
    expect((await sharp(got.body).raw().toBuffer()).equals(await sharp(small).raw().toBuffer())).toBe(true)
    expect(got.body.includes(Buffer.from('hidden after the end'))).toBe(false)
  })

  it('refuses a file whose content is not what its name says, and an allowed type under another name', async () => {
    expectError(await upload(owner, 'photo.png', 'image/png', MINIMAL_PDF), 415, undefined, 'unsupported_file_type')
    expectError(await upload(owner, 'report.pdf', 'application/pdf', await png()), 415, undefined, 'unsupported_file_type')
    expectError(await upload(owner, 'image', 'application/pdf', await png()), 415, undefined, 'unsupported_file_type')
  })

  it('keeps text that merely opens with "<" as text', async () => {
    expect((await uploaded(owner, 'note.txt', 'text/plain', Buffer.from('<3 to everyone\n'))).content_type).toBe('text/plain')
  })

  it('refuses an SVG with script, under any name or type', async () => {
    expectError(await upload(owner, 'logo.svg', 'image/svg+xml', SVG_WITH_SCRIPT), 415, undefined, 'unsupported_file_type')
    expectError(await upload(owner, 'logo.txt', 'text/plain', SVG_WITH_SCRIPT), 415, undefined, 'unsupported_file_type')
    expectError(await upload(owner, 'page', 'application/octet-stream', Buffer.from('<!doctype html><script>alert(1)</script>')), 415, undefined, 'unsupported_file_type')
  })

  it('refuses a decompression bomb without decoding it (422 image_too_large)', async () => {
    const bomb = decompressionBombPng()
    expect(bomb.length).toBeLessThan(50_000)
    const response = await upload(owner, 'bomb.png', 'image/png', bomb)
    expectError(response, 422, 'The image has more than 50000000 pixels (FILE_MAX_PIXELS)', 'image_too_large')
  })

  it('gives the reservation of a refused upload back', async () => {
    const before = await usage(owner)
    expectError(await upload(owner, 'x.png', 'image/png', MINIMAL_PDF), 415)
    const pending = await t.db.selectFrom('storage_usage').selectAll().where('user_id', '=', owner.user.id).executeTakeFirstOrThrow()
    expect(Number(pending.reserved_bytes)).toBe(0)
    expect(pending.reserved_files).toBe(0)
    expect(await usage(owner)).toEqual(before)
  })

  it('makes a variant on its first request, stores it, and serves the stored one after', async () => {
    const file = await uploaded(owner, 'big.png', 'image/png', await png(800, 600))
    const first = await download(file.variants.thumb!, owner)
    expect(first.status).toBe(200)
    const thumb = await sharp(first.body).metadata()
    expect(thumb).toMatchObject({ format: 'webp', width: 256, height: 256 })
    const row = await t.db.selectFrom('file_variants').selectAll().where('file_id', '=', file.id).executeTakeFirstOrThrow()
    expect(row.preset).toBe('thumb')
    const second = await download(file.variants.thumb!, owner)
    expect(second.body.equals(first.body)).toBe(true)
    const rows = await t.db.selectFrom('file_variants').selectAll().where('file_id', '=', file.id).execute()
    expect(rows).toHaveLength(1)
    expect(rows[0]!.created_at).toEqual(row.created_at)
    const medium = await sharp((await download(file.variants.medium!, owner)).body).metadata()
    expect(medium).toMatchObject({ format: 'webp', width: 800 })
    expectError(await t.app.inject({ url: `${file.url}/variants/w9999`, headers: owner.headers }), 404, undefined, 'file_not_found')
    const text = await uploaded(owner, 'a.txt', 'text/plain', Buffer.from('no variants here'))
    expectError(await t.app.inject({ url: `${text.url}/variants/thumb`, headers: owner.headers }), 404, undefined, 'file_not_found')
  })

  it('reads an unattached file to its owner and superusers only', async () => {
    const file = await uploaded(owner, 'mine.txt', 'text/plain', Buffer.from('mine'))
    expect((await download(file.url, owner)).status).toBe(200)
    expect((await download(file.url, superuser)).status).toBe(200)
    expectError(await t.app.inject({ url: file.url, headers: other.headers }), 404, undefined, 'file_not_found')
    expectError(await t.app.inject({ url: file.url }), 404, undefined, 'file_not_found')
  })

  it("reads an attached file under its post's rule: a private post's file is 404 to others, 200 to its author", async () => {
    const file = await uploaded(owner, 'secret.txt', 'text/plain', Buffer.from('private words'))
    const post = await t.app.inject({ method: 'POST', url: `${V2}/posts/`, payload: { title: 'Private', text: 'x', visibility: 'private', attachments: [file.id] }, headers: owner.headers })
    expect(post.statusCode, post.body).toBe(201)
    expect(post.json().attachments).toEqual([expect.objectContaining({ id: file.id, post_id: post.json().id, url: file.url })])
    expect((await download(file.url, owner)).status).toBe(200)
    expectError(await t.app.inject({ url: file.url, headers: other.headers }), 404, undefined, 'file_not_found')
    expectError(await t.app.inject({ url: file.url }), 404, undefined, 'file_not_found')
    // Made public, the post opens its file to anyone, signed in or not.
    await t.app.inject({ method: 'PATCH', url: `${V2}/posts/${post.json().id}`, payload: { visibility: 'public' }, headers: owner.headers })
    expect((await download(file.url)).status).toBe(200)
    expect((await download(file.url, other)).status).toBe(200)
  })

  it('lists a post\'s files in its v2 shape, in lists too, and replaces them on update', async () => {
    const a = await uploaded(owner, 'a.txt', 'text/plain', Buffer.from('a'))
    const b = await uploaded(owner, 'b.png', 'image/png', await png())
    const created = (await t.app.inject({ method: 'POST', url: `${V2}/posts/`, payload: { title: 'With files', text: 'x', attachments: [a.id, b.id] }, headers: owner.headers })).json()
    expect(created.attachments.map((file: FileBody) => file.id)).toEqual([a.id, b.id])
    expect(created.attachments[1].variants.thumb).toBe(`${V2}/files/${b.id}/variants/thumb`)
    const listed = (await t.app.inject({ url: `${V2}/posts/?limit=100` })).json()
    expect(listed.data.find((post: { id: number }) => post.id === created.id).attachments).toHaveLength(2)
    const updated = (await t.app.inject({ method: 'PATCH', url: `${V2}/posts/${created.id}`, payload: { attachments: [b.id] }, headers: owner.headers })).json()
    expect(updated.attachments.map((file: FileBody) => file.id)).toEqual([b.id])
    // Detached, the file is its owner's alone again.
    expectError(await t.app.inject({ url: a.url, headers: other.headers }), 404)
    expect((await t.app.inject({ url: `${V2}/posts/${created.id}` })).json().attachments).toHaveLength(1)
    // An edit that leaves the files alone answers with them (the post's kept count says it has some).
    const retitled = (await t.app.inject({ method: 'PATCH', url: `${V2}/posts/${created.id}`, payload: { title: 'Retitled' }, headers: owner.headers })).json()
    expect(retitled.attachments.map((file: FileBody) => file.id)).toEqual([b.id])
    const bare = (await t.app.inject({ method: 'POST', url: `${V2}/posts/`, payload: { title: 'No files', text: 'x' }, headers: owner.headers })).json()
    expect(bare.attachments).toEqual([])
    const v1 = (await t.app.inject({ url: `/services/v1/posts/${created.id}` })).json()
    expect(v1).not.toHaveProperty('attachments')
  })

  it("refuses someone else's file, an unknown one, and one attached to another post", async () => {
    const theirs = await uploaded(other, 'theirs.txt', 'text/plain', Buffer.from('theirs'))
    expectError(await t.app.inject({ method: 'POST', url: `${V2}/posts/`, payload: { title: 't', text: 'x', attachments: [theirs.id] }, headers: owner.headers }), 422)
    expectError(await t.app.inject({ method: 'POST', url: `${V2}/posts/`, payload: { title: 't', text: 'x', attachments: [999_999] }, headers: owner.headers }), 422)
    const mine = await uploaded(owner, 'once.txt', 'text/plain', Buffer.from('once'))
    expect((await t.app.inject({ method: 'POST', url: `${V2}/posts/`, payload: { title: 'first', text: 'x', attachments: [mine.id] }, headers: owner.headers })).statusCode).toBe(201)
    expectError(await t.app.inject({ method: 'POST', url: `${V2}/posts/`, payload: { title: 'second', text: 'x', attachments: [mine.id] }, headers: owner.headers }), 409, undefined, 'file_attached_elsewhere')
  })

  it('uploads straight to the store, then completes: the file is checked and answered', async () => {
    const data = await png(64, 64)
    const started = await t.app.inject({ method: 'POST', url: `${V2}/uploads`, payload: { name: 'direct.png', size: data.length, content_type: 'image/png' }, headers: owner.headers })
    expect(started.statusCode, started.body).toBe(201)
    const target = started.json<{ upload_id: number; url: string; method: string; headers: Record<string, string>; expires_at: string }>()
    expect(target.method).toBe('PUT')
    if (driver === 's3') expect(target.url).toContain('X-Amz-Signature=')
    else expect(target.url).toContain(`/api/v2/uploads/${target.upload_id}/content?expires=`)
    const put = await putTo(target.url, target.headers, data)
    expect(put).toBe(200)
    const completed = await t.app.inject({ method: 'POST', url: `${V2}/uploads/${target.upload_id}/complete`, headers: owner.headers })
    expect(completed.statusCode, completed.body).toBe(201)
    const file = completed.json<FileBody>()
    expect(file).toMatchObject({ id: target.upload_id, name: 'direct.png', content_type: 'image/png' })
    expect((await download(file.url, owner)).status).toBe(200)
    // Completed once: a second completion finds no upload.
    expectError(await t.app.inject({ method: 'POST', url: `${V2}/uploads/${target.upload_id}/complete`, headers: owner.headers }), 404, undefined, 'upload_not_found')
    // The upload URL lives on until it expires, but what it writes now is no file's: the checked bytes stay.
    const swapped = Buffer.from(SVG_WITH_SCRIPT.toString('latin1').padEnd(data.length, ' ').slice(0, data.length), 'latin1')
    expect(await putTo(target.url, target.headers, swapped)).toBe(driver === 'local' ? 404 : 200)
    const after = await download(file.url, owner)
    expect(sha256(after.body)).toBe(file.sha256)
    expect((await sharp(after.body).metadata()).format).toBe('png')
  })

  it.runIf(driver === 's3')('signs a PUT for minutes, and removes an ended upload\'s key again when its URL expires: a later PUT keeps nothing', async () => {
    const data = Buffer.from('x'.repeat(300))
    const target = (await t.app.inject({ method: 'POST', url: `${V2}/uploads`, payload: { name: 'late.txt', size: data.length, content_type: 'text/plain' }, headers: owner.headers })).json()
    expect(new URL(target.url).searchParams.get('X-Amz-Expires')).toBe('600')
    const row = await t.db.selectFrom('files').select(['storage_key', 'created_at']).where('id', '=', target.upload_id).executeTakeFirstOrThrow()
    expect(await putTo(target.url, target.headers, data)).toBe(200)
    expect((await t.app.inject({ method: 'POST', url: `${V2}/uploads/${target.upload_id}/complete`, headers: owner.headers })).statusCode).toBe(201)
    await drained(t.app, 'store-deletions')
    // Put back under the ended upload's key while the URL still works: counted nowhere.
    expect(await putTo(target.url, target.headers, Buffer.alloc(data.length, 'y'))).toBe(200)
    expect(await t.app.services.files.open(row.storage_key)).toBeDefined()
    const later = await t.db.selectFrom('blob_deletions').select(['id', 'next_attempt_at']).where('storage_key', '=', row.storage_key).execute()
    const urlExpiry = new Date(row.created_at as string | Date).getTime() + 600_000
    expect(later.map((deletion) => Number(deletion.next_attempt_at))).toEqual([expect.toSatisfy((at: number) => at >= urlExpiry && at <= urlExpiry + 120_000)])
    // Its time comes (the test moves it to now): the object is gone.
    await t.db.updateTable('blob_deletions').set({ next_attempt_at: Date.now() }).where('id', '=', later[0]!.id).execute()
    t.app.services.jobs.kick('store-deletions')
    await drained(t.app, 'store-deletions')
    expect(await t.app.services.files.open(row.storage_key)).toBeUndefined()
  })

  /** A PUT as a browser or client would make it: through the service (inject) for its own URL, over the network to S3. */
  async function putTo(url: string, headers: Record<string, string>, data: Buffer): Promise<number> {
    if (url.includes('/api/v2/uploads/')) {
      const { pathname, search } = new URL(url)
      return (await t.app.inject({ method: 'PUT', url: pathname + search, headers, payload: data })).statusCode
    }
    return (await fetch(url, { method: 'PUT', headers, body: data })).status
  }

  it('refuses to complete a truncated upload, and one whose bytes lie about their type', async () => {
    const data = Buffer.from('x'.repeat(1000))
    const started = (await t.app.inject({ method: 'POST', url: `${V2}/uploads`, payload: { name: 'notes.txt', size: 1000, content_type: 'text/plain' }, headers: owner.headers })).json()
    expect(await putTo(started.url, started.headers, data.subarray(0, 500))).toBe(200)
    expectError(await t.app.inject({ method: 'POST', url: `${V2}/uploads/${started.upload_id}/complete`, headers: owner.headers }), 409, undefined, 'upload_incomplete')
    // Sent again in full, it completes.
    expect(await putTo(started.url, started.headers, data)).toBe(200)
    expect((await t.app.inject({ method: 'POST', url: `${V2}/uploads/${started.upload_id}/complete`, headers: owner.headers })).statusCode).toBe(201)

    const lying = (await t.app.inject({ method: 'POST', url: `${V2}/uploads`, payload: { name: 'doc.pdf', size: SVG_WITH_SCRIPT.length, content_type: 'application/pdf' }, headers: owner.headers })).json()
    expect(await putTo(lying.url, lying.headers, SVG_WITH_SCRIPT)).toBe(200)
    expectError(await t.app.inject({ method: 'POST', url: `${V2}/uploads/${lying.upload_id}/complete`, headers: owner.headers }), 415, undefined, 'unsupported_file_type')
    // Refused for good: the upload is abandoned, its reservation given back.
    expectError(await t.app.inject({ method: 'POST', url: `${V2}/uploads/${lying.upload_id}/complete`, headers: owner.headers }), 404, undefined, 'upload_not_found')
    expectError(
      await t.app.inject({ method: 'POST', url: `${V2}/uploads`, payload: { name: 'page.html', size: 10, content_type: 'text/html' }, headers: owner.headers }),
      415,
      'Files of type text/html are not accepted: FILE_TYPES allows image/png, image/jpeg, image/gif, image/webp, application/pdf, text/plain',
      'unsupported_file_type',
    )
  })

  it.runIf(driver === 'local')('refuses a forged or expired upload URL, and more bytes than declared', async () => {
    const started = (await t.app.inject({ method: 'POST', url: `${V2}/uploads`, payload: { name: 'n.txt', size: 5, content_type: 'text/plain' }, headers: owner.headers })).json()
    const url = new URL(started.url)
    const forged = `${url.pathname}?expires=${url.searchParams.get('expires')}&signature=${'A'.repeat(43)}`
    expectError(await t.app.inject({ method: 'PUT', url: forged, payload: 'hello' }), 403, undefined, 'upload_url_invalid')
    const stretched = `${url.pathname}?expires=${Number(url.searchParams.get('expires')) + 1000}&signature=${url.searchParams.get('signature')}`
    expectError(await t.app.inject({ method: 'PUT', url: stretched, payload: 'hello' }), 403, undefined, 'upload_url_invalid')
    expectError(await t.app.inject({ method: 'PUT', url: url.pathname + url.search, payload: 'hello, too long' }), 413)
  })

  it.runIf(driver === 'local')('serves local files with an ETag, 304 when unchanged, and byte ranges', async () => {
    const data = Buffer.from('0123456789abcdef')
    const file = await uploaded(owner, 'range.txt', 'text/plain', data)
    const whole = await t.app.inject({ url: file.url, headers: owner.headers })
    expect(whole.headers).toMatchObject({ etag: `"${file.sha256}"`, 'accept-ranges': 'bytes', 'cache-control': 'private, no-cache', 'x-content-type-options': 'nosniff' })
    expect(String(whole.headers['content-security-policy'])).toContain('sandbox')
    expect(whole.headers['content-disposition']).toBe(`inline; filename="range.txt"; filename*=UTF-8''range.txt`)
    expect((await t.app.inject({ url: file.url, headers: { ...owner.headers, 'if-none-match': `"${file.sha256}"` } })).statusCode).toBe(304)
    const part = await t.app.inject({ url: file.url, headers: { ...owner.headers, range: 'bytes=2-5' } })
    expect(part.statusCode).toBe(206)
    expect(part.body).toBe('2345')
    expect(part.headers['content-range']).toBe('bytes 2-5/16')
    expect((await t.app.inject({ url: file.url, headers: { ...owner.headers, range: 'bytes=-3' } })).body).toBe('def')
    const unsatisfiable = await t.app.inject({ url: file.url, headers: { ...owner.headers, range: 'bytes=99-' } })
    expectError(unsatisfiable, 416, undefined, 'range_not_satisfiable')
    expect(unsatisfiable.headers['content-range']).toBe('bytes */16')
  })

  it.runIf(driver === 's3')('answers a short-lived presigned URL of the store, and a range through it', async () => {
    const file = await uploaded(owner, 'ranged.txt', 'text/plain', Buffer.from('0123456789'))
    const response = await t.app.inject({ url: file.url, headers: owner.headers })
    expect(response.statusCode).toBe(302)
    const location = new URL(String(response.headers.location))
    expect(location.searchParams.get('X-Amz-Expires')).toBe('300')
    expect(location.searchParams.get('response-content-disposition')).toContain('ranged.txt')
    const part = await fetch(location, { headers: { range: 'bytes=3-4' } })
    expect(await part.text()).toBe('34')
  })

  it('counts usage, lists the caller\'s files, and gives both back when a file is deleted', async () => {
    const someone = await seedAndLogin(t.app)
    expect(await usage(someone)).toEqual({ bytes: 0, files: 0, limit_bytes: 1024 ** 3, limit_files: 10_000 })
    const a = await uploaded(someone, 'a.txt', 'text/plain', Buffer.from('aaaa'))
    await uploaded(someone, 'b.txt', 'text/plain', Buffer.from('bbbbbb'))
    expect(await usage(someone)).toMatchObject({ bytes: 10, files: 2 })
    const page = (await t.app.inject({ url: `${V2}/users/me/files?limit=1`, headers: someone.headers })).json()
    expect(page).toMatchObject({ total_count: 2, has_more: true })
    expect(page.data[0].name).toBe('b.txt')
    expect((await t.app.inject({ url: `${V2}/users/me/files?cursor=${page.next_cursor}`, headers: someone.headers })).json().data[0].name).toBe('a.txt')
    expectError(await t.app.inject({ method: 'DELETE', url: a.url, headers: other.headers }), 404, undefined, 'file_not_found')
    expect((await t.app.inject({ method: 'DELETE', url: a.url, headers: someone.headers })).json()).toEqual({ message: 'File deleted' })
    expect(await usage(someone)).toMatchObject({ bytes: 6, files: 1 })
    expectError(await t.app.inject({ url: a.url, headers: someone.headers }), 404)
  })

  it('refuses an upload past the quota, and of two at the edge at once lets exactly one through', async () => {
    const tier = (await t.app.inject({ method: 'POST', url: `${V2}/tiers/`, payload: { name: `small-${driver}`, storage_bytes: 1500, storage_files: 3 }, headers: superuser.headers })).json()
    expect(tier).toMatchObject({ storage_bytes: 1500, storage_files: 3 })
    const limited = await seedAndLogin(t.app)
    await t.app.services.users.setTier(superuser.user, limited.user.id, tier.id)
    expect(await usage(limited)).toMatchObject({ limit_bytes: 1500, limit_files: 3 })
    const start = () => t.app.inject({ method: 'POST', url: `${V2}/uploads`, payload: { name: 'part.txt', size: 1000, content_type: 'text/plain' }, headers: limited.headers })
    const [first, second] = await Promise.all([start(), start()])
    expect([first.statusCode, second.statusCode].sort()).toEqual([201, 413])
    expectError(first.statusCode === 413 ? first : second, 413, /^Storage quota exceeded: at most 1500 bytes in 3 files \(the tier's storage quota/, 'quota_exceeded')
    expectError(await upload(limited, 'big.txt', 'text/plain', Buffer.alloc(900, 'x')), 413, undefined, 'quota_exceeded')
    // Raising the tier's quota makes room.
    await t.app.inject({ method: 'PATCH', url: `${V2}/tiers/${tier.id}`, payload: { storage_bytes: 1_000_000 }, headers: superuser.headers })
    expect((await upload(limited, 'fits.txt', 'text/plain', Buffer.alloc(900, 'x'))).statusCode).toBe(201)
  })

  it('keeps images sent at once within the quota as stored, never past it', async () => {
    const small = await smallPngThatInflates()
    const quota = 3 * small.length + 3 * 2048
    const tier = (await t.app.inject({ method: 'POST', url: `${V2}/tiers/`, payload: { name: `images-${driver}`, storage_bytes: quota, storage_files: 10 }, headers: superuser.headers })).json()
    const limited = await seedAndLogin(t.app)
    await t.app.services.users.setTier(superuser.user, limited.user.id, tier.id)
    const answers = await Promise.all([0, 1, 2].map((index) => upload(limited, `pattern-${index}.png`, 'image/png', small)))
    expect(answers.map((answer) => answer.statusCode)).toEqual([201, 201, 201])
    const used = await usage(limited)
    expect(used.bytes).toBeLessThanOrEqual(quota)
    expect(used.bytes).toBe(answers.reduce((sum, answer) => sum + answer.json<FileBody>().size, 0))
  })

  it('abandons an upload past its expiry: the reservation is released and its bytes removed', async () => {
    const someone = await seedAndLogin(t.app)
    const started = (await t.app.inject({ method: 'POST', url: `${V2}/uploads`, payload: { name: 'late.txt', size: 4, content_type: 'text/plain' }, headers: someone.headers })).json()
    expect(await putTo(started.url, started.headers, Buffer.from('late'))).toBe(200)
    const row = await t.db.selectFrom('files').select('storage_key').where('id', '=', started.upload_id).executeTakeFirstOrThrow()
    await t.db.updateTable('files').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', started.upload_id).execute()
    await t.app.services.storeUpkeep.abandonExpired()
    await drained(t.app, 'store-deletions')
    const reserved = await t.db.selectFrom('storage_usage').selectAll().where('user_id', '=', someone.user.id).executeTakeFirstOrThrow()
    expect([Number(reserved.reserved_bytes), reserved.reserved_files]).toEqual([0, 0])
    expect(await t.app.services.files.open(row.storage_key)).toBeUndefined()
    expectError(await t.app.inject({ method: 'POST', url: `${V2}/uploads/${started.upload_id}/complete`, headers: someone.headers }), 404)
  })

  it('keeps the files of a soft-deleted post (unreadable), and removes them with a permanent delete', async () => {
    const someone = await seedAndLogin(t.app)
    const file = await uploaded(someone, 'kept.txt', 'text/plain', Buffer.from('kept'))
    const post = (await t.app.inject({ method: 'POST', url: `${V2}/posts/`, payload: { title: 'p', text: 'x', attachments: [file.id] }, headers: someone.headers })).json()
    await t.app.inject({ method: 'DELETE', url: `${V2}/posts/${post.id}`, headers: someone.headers })
    expectError(await t.app.inject({ url: file.url }), 404)
    expect(await usage(someone)).toMatchObject({ files: 1 })
    const key = (await t.db.selectFrom('files').select('storage_key').where('id', '=', file.id).executeTakeFirstOrThrow()).storage_key
    await t.app.inject({ method: 'DELETE', url: `${V2}/posts/${post.id}/permanent`, headers: superuser.headers })
    expect(await usage(someone)).toMatchObject({ bytes: 0, files: 0 })
    await drained(t.app, 'store-deletions')
    expect(await t.app.services.files.open(key)).toBeUndefined()
    const events = await t.db.selectFrom('change_events').select(['type', 'subject']).where('subject', '=', `file:${file.id}`).orderBy('id').execute()
    expect(events.map((event) => event.type)).toEqual(['file.created', 'file.deleted'])
  })

  it("removes a user's files with the user", async () => {
    const leaving = await seedAndLogin(t.app)
    const file = await uploaded(leaving, 'gone.txt', 'text/plain', Buffer.from('gone'))
    const key = (await t.db.selectFrom('files').select('storage_key').where('id', '=', file.id).executeTakeFirstOrThrow()).storage_key
    const removed = await t.app.inject({ method: 'DELETE', url: `${V2}/users/${leaving.user.id}/permanent`, headers: superuser.headers })
    expect(removed.statusCode, removed.body).toBe(200)
    expect(await t.db.selectFrom('files').select('id').where('owner_id', '=', leaving.user.id).execute()).toEqual([])
    await drained(t.app, 'store-deletions')
    expect(await t.app.services.files.open(key)).toBeUndefined()
  })

  it('reconciles the store with the rows both ways', async () => {
    const someone = await seedAndLogin(t.app)
    const file = await uploaded(someone, 'lost.txt', 'text/plain', Buffer.from('lost'))
    const key = (await t.db.selectFrom('files').select('storage_key').where('id', '=', file.id).executeTakeFirstOrThrow()).storage_key
    // An object nobody counts (a crash between putting bytes and writing their row), and a counted file whose object is gone.
    await storeOf(t).put('files/orphan-object', Buffer.from('orphan'), 'text/plain')
    await storeOf(t).remove(key)
    const report = await t.app.services.storeUpkeep.sweep(undefined, Date.now() + 2 * 60 * 60 * 1000)
    expect(report.orphanObjects).toBeGreaterThanOrEqual(1)
    expect(report.missingObjects).toBe(1)
    expect(await t.app.services.files.open('files/orphan-object')).toBeUndefined()
    expect(await usage(someone)).toMatchObject({ bytes: 0, files: 0 })
    expectError(await t.app.inject({ url: file.url, headers: someone.headers }), 404)
  })

  it('keeps avatars working on the same store', async () => {
    const form = multipart([{ field: 'file', filename: 'me.png', contentType: 'image/png', data: await png(16, 16) }])
    const response = await t.app.inject({ method: 'POST', url: `${V2}/users/${owner.user.id}/avatar`, payload: form.payload, headers: { ...form.headers, ...owner.headers } })
    expect(response.statusCode, response.body).toBe(200)
    const url = response.json().avatar_url as string
    const served = await t.app.inject({ url })
    expect(served.statusCode).toBe(200)
    expect(served.headers['content-type']).toBe('image/png')
  })
})

describe('a file larger than FILE_MAX_BYTES through the form', () => {
  let t: TestApp
  let someone: LoggedIn
  beforeAll(async () => {
    t = await createTestApp({ FILE_MAX_BYTES: '2048' })
    someone = await seedAndLogin(t.app)
  })
  afterAll(() => t.close())

  it('is cut off with 413, never stored short, and its reservation is given back', async () => {
    const form = multipart([{ field: 'file', filename: 'long.txt', contentType: 'text/plain', data: Buffer.alloc(10_000, 'x') }])
    expectError(await t.app.inject({ method: 'POST', url: `${V2}/files`, payload: form.payload, headers: { ...form.headers, ...someone.headers } }), 413, 'Files may be at most 2048 bytes (FILE_MAX_BYTES)')
    expect(await t.db.selectFrom('files').select('id').where('owner_id', '=', someone.user.id).execute()).toEqual([])
    const usage = await t.db.selectFrom('storage_usage').selectAll().where('user_id', '=', someone.user.id).executeTakeFirstOrThrow()
    expect([Number(usage.bytes), Number(usage.reserved_bytes), usage.reserved_files]).toEqual([0, 0, 0])
  })
})

describe('an S3 store that is down', () => {
  let t: TestApp
  let s3: TestS3Server
  let someone: LoggedIn
  beforeAll(async () => {
    s3 = await startS3Server()
    t = await createTestApp(s3.env)
    someone = await seedAndLogin(t.app)
  })
  afterAll(() => t.close())

  it('answers 503 service_unavailable and gives the reservation back', async () => {
    const form = () => multipart([{ field: 'file', filename: 'a.txt', contentType: 'text/plain', data: Buffer.from('stored while up') }])
    const upload = () => {
      const body = form()
      return t.app.inject({ method: 'POST', url: `${V2}/files`, payload: body.payload, headers: { ...body.headers, ...someone.headers } })
    }
    const file = (await upload()).json<FileBody>()
    const imageForm = multipart([{ field: 'file', filename: 'p.png', contentType: 'image/png', data: await png(64, 64) }])
    const image = (await t.app.inject({ method: 'POST', url: `${V2}/files`, payload: imageForm.payload, headers: { ...imageForm.headers, ...someone.headers } })).json<FileBody>()
    await s3.close()
    expectError(await upload(), 503, 'Service unavailable', 'service_unavailable')
    // A variant not made yet needs the original from the store.
    expectError(await t.app.inject({ url: image.variants.thumb!, headers: someone.headers }), 503, 'Service unavailable', 'service_unavailable')
    // A download is a presigned URL, signed without asking the store: the client meets the outage there.
    expect((await t.app.inject({ url: file.url, headers: someone.headers })).statusCode).toBe(302)
    const usage = await t.db.selectFrom('storage_usage').selectAll().where('user_id', '=', someone.user.id).executeTakeFirstOrThrow()
    expect([usage.files, Number(usage.reserved_bytes), usage.reserved_files]).toEqual([2, 0, 0])
  })
})

/** The app's store as its settings open it, for the tests that break it on purpose. */
const storeOf = (t: TestApp) => createBlobStore(t.config.files.storage)
