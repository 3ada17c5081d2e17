// A data export survives its builder: a server killed with SIGKILL while the ZIP streams to the
// store (S3 behind a proxy that stops forwarding) leaves the job claimed; once the lease lapses
// another server takes it over, removes what the dead build left and finishes it, and the ZIP
// downloads whole.
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { dialect } from '../../../test/helpers/app.js'
import type { TestS3Server } from '../../../test/helpers/s3.js'
import { startS3Server } from '../../../test/helpers/s3.js'
import type { Server, ServersOnOneDatabase } from '../../../test/helpers/servers.js'
import { serversOnOneDatabase, signUpAt } from '../../../test/helpers/servers.js'
import type { TcpProxy } from '../../../test/helpers/tcp-proxy.js'
import { startTcpProxy } from '../../../test/helpers/tcp-proxy.js'
import { waitFor } from '../../../test/helpers/wait.js'
import { unzip } from '../../../test/helpers/zip.js'

const POSTS = 10

describe(`a data export across processes (${dialect()})`, () => {
  let s3: TestS3Server
  let proxy: TcpProxy
  let servers: ServersOnOneDatabase
  beforeAll(async () => {
    s3 = await startS3Server()
    proxy = await startTcpProxy('127.0.0.1', Number(new URL(s3.endpoint).port))
    servers = await serversOnOneDatabase({ ...s3.env, S3_ENDPOINT: `http://127.0.0.1:${proxy.port}`, DATA_EXPORT_LEASE_SECONDS: '3' })
  })
  afterAll(async () => {
    await servers?.close()
    await proxy?.close()
    await s3?.close()
  })

  const call = (server: Server, token: string, method: string, path: string, body?: object) =>
    fetch(`${server.url}/api/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })

  it('is finished by another process after its builder is killed with SIGKILL mid-build', async () => {
    const victim = await servers.start()
    const token = await signUpAt(victim, 'kim')
    for (let index = 0; index < POSTS; index++) expect((await call(victim, token, 'POST', '/posts/', { title: `Post ${index}`, text: 'x'.repeat(200) })).status).toBe(201)
    const form = new FormData()
    form.append('file', new Blob([Buffer.from('kept across the kill\n')], { type: 'text/plain' }), 'kept.txt')
    const uploaded = await fetch(`${victim.url}/api/v2/files`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form })
    expect(uploaded.status).toBe(201)
    const fileId = ((await uploaded.json()) as { id: number }).id

    // The store stops answering: the build claims the job, then waits on it.
    proxy.hold()
    const asked = await call(victim, token, 'POST', '/users/me/export')
    expect(asked.status).toBe(202)
    const { id } = (await asked.json()) as { id: number }
    await waitFor(async () => ((await (await call(victim, token, 'GET', `/users/me/exports/${id}`)).json()) as { status: string }).status === 'building', 10_000)
    victim.child.kill('SIGKILL')
    await victim.exited
    proxy.release()

    // Started only now, so that the dead server is the one that claimed the export.
    const heir = await servers.start()
    let status = ''
    await waitFor(async () => {
      status = ((await (await call(heir, token, 'GET', `/users/me/exports/${id}`)).json()) as { status: string }).status
      return status === 'ready'
    }, 20_000)
    const link = (await (await call(heir, token, 'POST', `/users/me/exports/${id}/link`)).json()) as { url: string }
    const download = await fetch(`${heir.url}${new URL(link.url).pathname}${new URL(link.url).search}`)
    expect(download.status).toBe(200)
    const entries = await unzip(Buffer.from(await download.arrayBuffer()))
    expect(JSON.parse(entries.get('posts.json')!.toString())).toHaveLength(POSTS)
    expect(entries.get(`files/${fileId}-kept.txt`)!.toString()).toBe('kept across the kill\n')
    // The dead build's leftovers are gone: the heir's ZIP is the one object under exports/.
    const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } })
    const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'exports/' }))
    expect(listed.Contents?.map((object) => object.Key)).toHaveLength(1)
    client.destroy()
  })
})
