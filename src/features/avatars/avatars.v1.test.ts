import { randomUUID } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'

import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError, expectValidationError } from '../../../test/helpers/expect.js'
import { jpegWithGps } from '../../../test/helpers/images.js'
import type { FilePart } from '../../../test/helpers/multipart.js'
import { GIF_1X1, JPEG_1X1, JPEG_HEADER, multipart, PNG_1X1, WEBP_1X1, WEBP_HEADER } from '../../../test/helpers/multipart.js'
import { seedAndLogin, seedUser,V1 } from '../../../test/helpers/users.js'

const UPLOAD_MAX_BYTES = 4096

const file = (overrides: Partial<FilePart> = {}): FilePart => ({
  field: 'file',
  filename: 'me.png',
  contentType: 'image/png',
  data: PNG_1X1,
  ...overrides,
})

for (const storage of ['disk', 'database'] as const) {
  describe(`POST /users/{user_id}/avatar (${storage} storage)`, () => {
    let t: TestApp
    beforeAll(async () => {
      t = await createTestApp({ AVATAR_STORAGE: storage, UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES) })
    })
    afterAll(() => t.close())

    const upload = (userId: number, parts: FilePart[], headers: Record<string, string> = {}) => {
      const body = multipart(parts)
      return t.app.inject({ method: 'POST', url: `${V1}/users/${userId}/avatar`, payload: body.payload, headers: { ...body.headers, ...headers } })
    }

    it('stores the image under a generated name and serves it back with its type and nosniff', async () => {
      const { user, headers } = await seedAndLogin(t.app)
      const response = await upload(user.id, [file({ filename: '../../etc/passwd.png' })], headers)
      expect(response.statusCode, response.body).toBe(200)
      const body = response.json()
      expect(body.message).toEqual(expect.any(String))
      expect(body.profile_image_url).toMatch(/^\/media\/avatars\/[0-9a-f-]{36}\.png$/)
      expect(body.profile_image_url).not.toContain('passwd')
      expect((await t.app.inject({ url: `${V1}/users/${user.id}` })).json().profile_image_url).toBe(body.profile_image_url)

      const served = await t.app.inject({ url: body.profile_image_url })
      expect(served.statusCode).toBe(200)
      expect(served.headers['content-type']).toBe('image/png')
      expect(served.headers['x-content-type-options']).toBe('nosniff')
      expect(served.rawPayload.equals(PNG_1X1)).toBe(true)
    })

    it.each([
      ['GIF', GIF_1X1, 'image/gif', 'gif'],
      ['JPEG', JPEG_1X1, 'image/jpeg', 'jpg'],
      ['WebP', WEBP_1X1, 'image/webp', 'webp'],
    ])('accepts %s, typed by its bytes rather than the declared type', async (_name, data, type, extension) => {
      const { user, headers } = await seedAndLogin(t.app)
      const response = await upload(user.id, [file({ data, contentType: 'image/png' })], headers)
      expect(response.statusCode, response.body).toBe(200)
      expect(response.json().profile_image_url).toMatch(new RegExp(`\\.${extension}$`))
      expect((await t.app.inject({ url: response.json().profile_image_url })).headers['content-type']).toBe(type)
    })

    it('stores and serves an avatar without where the photo was taken (EXIF and GPS removed, the orientation kept)', async () => {
      const { user, headers } = await seedAndLogin(t.app)
      const photo = await sharp(await jpegWithGps(24, 16)).withMetadata({ orientation: 6 }).withExif({ IFD0: { Make: 'TestCam' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' } }).toBuffer()
      expect((await sharp(photo).metadata()).exif?.toString('latin1')).toContain('TestCam')
      const response = await upload(user.id, [file({ data: photo, contentType: 'image/jpeg', filename: 'me.jpg' })], headers)
      expect(response.statusCode, response.body).toBe(200)
      const served = await t.app.inject({ url: response.json().profile_image_url })
      const seen = await sharp(served.rawPayload).metadata()
      expect(seen.orientation).toBe(6)
      expect(served.rawPayload.toString('latin1')).not.toMatch(/TestCam|GPS/)
      expect(served.rawPayload.length).toBeLessThanOrEqual(photo.length)
    })

    it('cleans an avatar stored before avatars were cleaned the first time it is served, and keeps it cleaned', async () => {
      const user = await seedUser(t.app)
      const photo = await jpegWithGps(24, 16)
      const name = `${randomUUID()}.jpg`
      if (storage === 'database') await t.db.insertInto('avatars').values({ name, content_type: 'image/jpeg', data: photo, created_at: new Date().toISOString() }).execute()
      else {
        await mkdir(path.join(t.config.dataDir, 'avatars'), { recursive: true })
        await writeFile(path.join(t.config.dataDir, 'avatars', name), photo)
      }
      await t.db.updateTable('users').set({ profile_image_url: `/media/avatars/${name}`, avatar_key: name }).where('id', '=', user.id).execute()
      const served = await t.app.inject({ url: `/media/avatars/${name}` })
      expect(served.statusCode).toBe(200)
      expect((await sharp(served.rawPayload).metadata()).exif).toBeUndefined()
      const stored = storage === 'database'
        ? (await t.db.selectFrom('avatars').select('data').where('name', '=', name).executeTakeFirstOrThrow()).data
        : await readFile(path.join(t.config.dataDir, 'avatars', name))
      expect(Buffer.from(stored).equals(served.rawPayload)).toBe(true)
    })

    it('replaces the previous avatar and deletes its file', async () => {
      const { user, headers } = await seedAndLogin(t.app)
      const first = (await upload(user.id, [file()], headers)).json().profile_image_url
      const second = (await upload(user.id, [file({ data: GIF_1X1 })], headers)).json().profile_image_url
      expect(second).not.toBe(first)
      expect((await t.app.inject({ url: first })).statusCode).toBe(404)
      expect((await t.app.inject({ url: second })).statusCode).toBe(200)
    })

    it('refuses a content type that is not image/* with 400', async () => {
      const { user, headers } = await seedAndLogin(t.app)
      expectError(await upload(user.id, [file({ contentType: 'text/plain' })], headers), 400, 'File must be an image')
      expectError(await upload(user.id, [file({ contentType: 'application/octet-stream' })], headers), 400, 'File must be an image')
    })

    it('refuses image/* whose bytes are not an image (e.g. HTML or SVG) with 400', async () => {
      const { user, headers } = await seedAndLogin(t.app)
      const html = Buffer.from('<html><script>alert(1)</script></html>')
      expectError(await upload(user.id, [file({ data: html })], headers), 400, 'File must be an image')
      const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
      expectError(await upload(user.id, [file({ data: svg, contentType: 'image/svg+xml' })], headers), 400, 'File must be an image')
      expectError(await upload(user.id, [file({ data: Buffer.alloc(0) })], headers), 400, 'File must be an image')
      // Bytes that open like an image and decode as none.
      for (const data of [JPEG_HEADER, WEBP_HEADER, Buffer.concat([PNG_1X1.subarray(0, 40), Buffer.alloc(40)])]) {
        expectError(await upload(user.id, [file({ data, contentType: 'image/jpeg' })], headers), 400, 'File must be an image')
      }
    })

    it('refuses a file over UPLOAD_MAX_BYTES with 413, streamed or declared', async () => {
      const { user, headers } = await seedAndLogin(t.app)
      const justOver = Buffer.concat([PNG_1X1, Buffer.alloc(UPLOAD_MAX_BYTES)])
      expectError(await upload(user.id, [file({ data: justOver })], headers), 413, 'File too large')
      const huge = Buffer.concat([PNG_1X1, Buffer.alloc(512 * 1024)])
      expectError(await upload(user.id, [file({ data: huge })], headers), 413, 'File too large')
      expect((await t.app.inject({ url: `${V1}/users/${user.id}` })).json().profile_image_url).toMatch(/default/)
    })

    it('needs a part named "file" (422) in a multipart body (415 otherwise)', async () => {
      const { user, headers } = await seedAndLogin(t.app)
      expectValidationError(await upload(user.id, [file({ field: 'avatar' })], headers), ['body', 'file'])
      expectValidationError(await upload(user.id, [], headers), ['body', 'file'])
      const json = await t.app.inject({ method: 'POST', url: `${V1}/users/${user.id}/avatar`, payload: { file: 'x' }, headers })
      expectError(json, 415)
    })

    it('refuses a broken multipart body with 400, keeping the old avatar', async () => {
      const { user, headers } = await seedAndLogin(t.app)
      const before = (await upload(user.id, [file()], headers)).json().profile_image_url
      const whole = multipart([file()])
      const boundary = whole.headers['content-type'].split('boundary=')[1]
      const send = (payload: string | Buffer) =>
        t.app.inject({ method: 'POST', url: `${V1}/users/${user.id}/avatar`, payload, headers: { ...whole.headers, ...headers } })
      const broken = [
        'not multipart at all', // no boundary anywhere
        `--${boundary}\r\n`, // ends after the first boundary
        whole.payload.subarray(0, whole.payload.length - 20), // file part cut off before its end
      ]
      for (const payload of broken) expectError(await send(payload), 400, 'Malformed multipart body')
      // A part without a Content-Disposition header is no "file" part.
      expectValidationError(await send(`--${boundary}\r\nthis is not a header\r\n\r\nx\r\n--${boundary}--\r\n`), ['body', 'file'])
      expect((await t.app.inject({ url: `${V1}/users/${user.id}` })).json().profile_image_url).toBe(before)
    })

    it("never deletes another user's stored avatar through a URL written with PATCH", async () => {
      const alice = await seedAndLogin(t.app)
      const mallory = await seedAndLogin(t.app)
      const admin = await seedAndLogin(t.app, {}, { superuser: true })
      const aliceUrl = (await upload(alice.user.id, [file()], alice.headers)).json().profile_image_url as string
      const pointAtAlice = await t.app.inject({
        method: 'PATCH',
        url: `${V1}/users/${mallory.user.id}`,
        payload: { profile_image_url: aliceUrl },
        headers: mallory.headers,
      })
      expect(pointAtAlice.statusCode).toBe(200)
      // Replacing the pointed-at image, then being removed, must leave Alice's file alone.
      expect((await upload(mallory.user.id, [file()], mallory.headers)).statusCode).toBe(200)
      await t.app.inject({ method: 'PATCH', url: `${V1}/users/${mallory.user.id}`, payload: { profile_image_url: aliceUrl }, headers: mallory.headers })
      await t.app.inject({ method: 'PATCH', url: `${V1}/users/${mallory.user.id}`, payload: { profile_image_url: 'https://cdn.example.com/x.png' }, headers: mallory.headers })
      await t.app.inject({ method: 'PATCH', url: `${V1}/users/${mallory.user.id}`, payload: { profile_image_url: aliceUrl }, headers: mallory.headers })
      const removed = await t.app.inject({ method: 'DELETE', url: `${V1}/users/${mallory.user.id}/permanent`, headers: admin.headers })
      expect(removed.statusCode).toBe(200)
      expect((await t.app.inject({ url: aliceUrl })).statusCode).toBe(200)
    })

    it("deletes the user's own upload once it is replaced by a link", async () => {
      const { user, headers } = await seedAndLogin(t.app)
      const ownUrl = (await upload(user.id, [file()], headers)).json().profile_image_url as string
      await t.app.inject({ method: 'PATCH', url: `${V1}/users/${user.id}`, payload: { profile_image_url: 'https://cdn.example.com/me.png' }, headers })
      expect((await t.app.inject({ url: ownUrl })).statusCode).toBe(404)
    })

    it('is for that user or a superuser', async () => {
      const owner = await seedUser(t.app)
      expectError(await upload(owner.id, [file()]), 401, 'Not authenticated')
      const other = await seedAndLogin(t.app)
      expectError(await upload(owner.id, [file()], other.headers), 403, 'Not enough permissions')
      const admin = await seedAndLogin(t.app, {}, { superuser: true })
      expect((await upload(owner.id, [file()], admin.headers)).statusCode).toBe(200)
      expectError(await upload(999999, [file()], admin.headers), 404, 'User not found')
    })
  })
}

describe('GET /media/avatars/{name}', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  it('serves the default avatar as SVG', async () => {
    const user = await seedUser(t.app)
    const response = await t.app.inject({ url: user.profileImageUrl })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/^image\/svg\+xml/)
    expect(response.headers['x-content-type-options']).toBe('nosniff')
  })

  it.each(['nothing.png', '..%2F..%2Fapp.db', '..%2Fsecret_key', '00000000-0000-0000-0000-000000000000.png', 'x'.repeat(100)])(
    'gives 404 (or 422) for %s and never reads outside the store',
    async (name) => {
      const response = await t.app.inject({ url: `/media/avatars/${name}` })
      expect([404, 422]).toContain(response.statusCode)
      expectError(response, response.statusCode)
    },
  )
})
