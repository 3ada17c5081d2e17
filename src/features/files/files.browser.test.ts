// An upload as a frontend on another origin makes it, in Debian's Chromium: a real PNG drawn on a
// canvas, a target asked of the service with the bearer token, the bytes PUT straight to the
// store (a presigned URL on S3, the service's signed URL on local disk), the upload completed,
// and the stored image read back and decoded in the page.
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { openPage } from '../../../test/helpers/browser.js'
import { serveFrontend } from '../../../test/helpers/frontend.js'
import { freePort } from '../../../test/helpers/process.js'
import type { TestS3Server } from '../../../test/helpers/s3.js'
import { startS3Server } from '../../../test/helpers/s3.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin } from '../../../test/helpers/users.js'

const chromiumPath = inject('chromiumPath')

/** What the page script uses of the browser (the tests are typed for Node, without the DOM's types). */
interface PageGlobals {
  document: {
    createElement(tag: 'canvas'): {
      width: number
      height: number
      getContext(kind: '2d'): { fillStyle: string; fillRect(x: number, y: number, width: number, height: number): void } | null
      toBlob(done: (blob: Blob | null) => void, type: string): void
    }
  }
  createImageBitmap(blob: Blob): Promise<{ width: number }>
}

interface Outcome {
  putStatus: number
  file: { id: number; content_type: string; url: string; variants: Record<string, string> }
  width: number | string
  thumbWidth: number | string
}

describe.skipIf(!chromiumPath).each(['s3', 'local'] as const)('an upload from a page on another origin, straight to the %s store', (driver) => {
  let t: TestApp
  let s3: TestS3Server | undefined
  let apiBase = ''
  let frontend: Awaited<ReturnType<typeof serveFrontend>>
  let browser: Browser
  let page: Page
  let problems: string[]
  let alice: LoggedIn

  beforeAll(async () => {
    frontend = await serveFrontend(await mkdtemp(path.join(tmpdir(), 'ups-upload-')), () => '<!doctype html><html><head><title>Upload</title><link rel="icon" href="data:,"></head><body><h1>Upload</h1></body></html>')
    s3 = driver === 's3' ? await startS3Server() : undefined
    // The service's own upload URL names where the browser reaches it (PUBLIC_URL).
    const port = await freePort()
    apiBase = `http://localhost:${port}`
    t = await createTestApp({ CORS_ORIGINS: frontend.origin, PUBLIC_URL: apiBase, ...(s3?.env ?? {}) })
    await t.app.listen({ host: '127.0.0.1', port })
    alice = await seedAndLogin(t.app)
    ;({ browser, page, problems } = await openPage(chromiumPath, frontend.origin))
  }, 300_000)
  afterAll(async () => {
    await browser?.close()
    await t?.close()
    await s3?.close()
    await frontend?.close()
  })

  it('puts a canvas-drawn PNG straight into the store, completes it, and reads it and its thumbnail back', async () => {
    const outcome = await page.evaluate(
      async ({ api, token }): Promise<Outcome> => {
        const page = globalThis as unknown as PageGlobals
        const canvas = page.document.createElement('canvas')
        canvas.width = 300
        canvas.height = 200
        const context = canvas.getContext('2d')!
        context.fillStyle = '#2e86de'
        context.fillRect(0, 0, 300, 200)
        const blob = await new Promise<Blob>((resolve) => canvas.toBlob((made: Blob | null) => resolve(made!), 'image/png'))
        const auth = { authorization: `Bearer ${token}` }
        const asked = await fetch(`${api}/api/v2/uploads`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'drawing.png', size: blob.size, content_type: blob.type }) })
        const target = (await asked.json()) as { upload_id: number; url: string; method: string; headers: Record<string, string> }
        const put = await fetch(target.url, { method: target.method, headers: target.headers, body: blob })
        const completed = await fetch(`${api}/api/v2/uploads/${target.upload_id}/complete`, { method: 'POST', headers: auth })
        const file = (await completed.json()) as Outcome['file']
        // What was read, said in full when it is not an image, so a failure names its cause.
        const widthOf = async (url: string): Promise<number | string> => {
          const read = await fetch(`${api}${url}`, { headers: auth })
          const body = await read.blob()
          try {
            return (await page.createImageBitmap(body)).width
          } catch (error) {
            return `${String(error)}: ${read.status} ${read.headers.get('content-type')}, ${body.size} bytes: ${(await body.text()).slice(0, 200)}`
          }
        }
        return { putStatus: put.status, file, width: await widthOf(file.url), thumbWidth: await widthOf(file.variants.thumb!) }
      },
      { api: apiBase, token: alice.accessToken },
    )
    expect(outcome.putStatus).toBe(200)
    expect(outcome.file.content_type).toBe('image/png')
    expect(outcome.width).toBe(300)
    expect(outcome.thumbWidth).toBe(256)
    expect(problems).toEqual([])
  })
})
