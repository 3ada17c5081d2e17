// Files in the benchmark: upload throughput through the service (a multipart form, and the local
// driver's upload URL) against a plain fs write of the same bytes, and an image variant's first
// (rendered) and cached (read from the store) latency. On the service as `npm start` runs it.
import { randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'

import sharp from 'sharp'

import { median, nearestRank } from './percentile.mjs'

export interface FilesBenchTools {
  startService(extra: Record<string, string>): Promise<{ url: string; stop(): Promise<void>; process: { pid?: number } }>
  login(url: string): Promise<string>
  /** User + system CPU time of a process so far, in µs. */
  cpuMicros(pid: number): number | undefined
  rounds: number
}

export interface FilesBenchResult {
  fileMegabytes: number
  filesPerRound: number
  /** MB/s (10^6 bytes) by path, the median of the rounds. */
  throughput: { form: number; uploadUrl: number; fsWrite: number }
  /** Through the service as a share of the plain write. */
  ratios: { form: number; uploadUrl: number }
  /** MB per CPU-second: the service process's for its paths, this process's for the plain write (the client's work is not counted). */
  megabytesPerCpuSecond: { form: number; uploadUrl: number; fsWrite: number }
  variant: { source: string; firstMs: number[]; cachedP50Ms: number; cachedP99Ms: number }
}

const FILE_BYTES = 16 * 1024 * 1024
const FILES_PER_ROUND = 6
const CACHED_READS = 50

const megabytesPerSecond = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000)

/** Text-like bytes that are not an image: they stream to the store without being held whole. */
function payload(): Buffer {
  return Buffer.from(randomBytes(FILE_BYTES / 2).toString('hex'))
}

/** This process's user + system CPU time so far, in µs. */
function ownCpuMicros(): number {
  const used = process.cpuUsage()
  return used.user + used.system
}

async function timed(run: () => Promise<void>): Promise<number> {
  const start = performance.now()
  await run()
  return performance.now() - start
}

export async function benchFiles(tools: FilesBenchTools): Promise<FilesBenchResult> {
  const server = await tools.startService({ FILE_MAX_BYTES: String(64 * 1024 * 1024), STORAGE_QUOTA_BYTES: String(64 * 1024 ** 3) })
  const scratch = await mkdtemp(path.join(tmpdir(), 'ups-bench-fs-'))
  try {
    const token = await tools.login(server.url)
    const auth = { authorization: `Bearer ${token}` }
    const data = payload()
    const form = async () => {
      const body = new FormData()
      body.append('file', new Blob([data], { type: 'text/plain' }), 'bench.txt')
      const answer = await fetch(`${server.url}/api/v2/files`, { method: 'POST', headers: auth, body })
      if (answer.status !== 201) throw new Error(`bench: POST /files answered ${answer.status} ${await answer.text()}`)
      await remove((await answer.json()) as { id: number })
    }
    const uploadUrl = async () => {
      const asked = await fetch(`${server.url}/api/v2/uploads`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench.txt', size: data.length, content_type: 'text/plain' }) })
      const target = (await asked.json()) as { upload_id: number; url: string; headers: Record<string, string> }
      const put = await fetch(target.url, { method: 'PUT', headers: target.headers, body: data })
      if (put.status !== 200) throw new Error(`bench: the upload URL answered ${put.status}`)
      const completed = await fetch(`${server.url}/api/v2/uploads/${target.upload_id}/complete`, { method: 'POST', headers: auth })
      if (completed.status !== 201) throw new Error(`bench: completing answered ${completed.status} ${await completed.text()}`)
      await remove((await completed.json()) as { id: number })
    }
    const remove = async (file: { id: number }) => {
      await fetch(`${server.url}/api/v2/files/${file.id}`, { method: 'DELETE', headers: auth })
    }
    // What the service's local driver does at the least: stream the bytes to a new file.
    let written = 0
    const fsWrite = () => pipeline(Readable.from([data]), createWriteStream(path.join(scratch, `plain-${written++}`)))

    const rounds: Record<keyof FilesBenchResult['throughput'], number[]> = { form: [], uploadUrl: [], fsWrite: [] }
    const perCpu: Record<keyof FilesBenchResult['throughput'], number[]> = { form: [], uploadUrl: [], fsWrite: [] }
    const pid = server.process.pid as number
    const cpuOf = (name: keyof FilesBenchResult['throughput']) => (name === 'fsWrite' ? ownCpuMicros() : (tools.cpuMicros(pid) ?? 0))
    await form()
    await uploadUrl()
    for (let round = 0; round < tools.rounds; round++) {
      for (const [name, run] of [['form', form], ['uploadUrl', uploadUrl], ['fsWrite', fsWrite]] as const) {
        const cpuBefore = cpuOf(name)
        const ms = await timed(async () => {
          for (let index = 0; index < FILES_PER_ROUND; index++) await run()
        })
        rounds[name].push(megabytesPerSecond(FILES_PER_ROUND * data.length, ms))
        perCpu[name].push(megabytesPerSecond(FILES_PER_ROUND * data.length, (cpuOf(name) - cpuBefore) / 1000))
      }
      await rm(scratch, { recursive: true, force: true })
      await mkdir(scratch)
      written = 0
    }
    const throughput = { form: median(rounds.form), uploadUrl: median(rounds.uploadUrl), fsWrite: median(rounds.fsWrite) }
    const megabytesPerCpuSecond = { form: median(perCpu.form), uploadUrl: median(perCpu.uploadUrl), fsWrite: median(perCpu.fsWrite) }
    console.log(`   upload ${FILES_PER_ROUND} × ${(data.length / 1e6).toFixed(1)} MB: form ${throughput.form.toFixed(0)} MB/s, upload URL ${throughput.uploadUrl.toFixed(0)} MB/s, fs write ${throughput.fsWrite.toFixed(0)} MB/s`)
    console.log(`   MB per CPU-second: service, form ${megabytesPerCpuSecond.form.toFixed(0)}, upload URL ${megabytesPerCpuSecond.uploadUrl.toFixed(0)}; fs write ${megabytesPerCpuSecond.fsWrite.toFixed(0)}`)

    // A phone photo's size: 4000 × 3000 JPEG, its `medium` (1280 wide) variant.
    const photo = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#4a7' } }).jpeg({ quality: 85 }).toBuffer()
    const firstMs: number[] = []
    const cachedMs: number[] = []
    for (let round = 0; round < tools.rounds; round++) {
      const body = new FormData()
      body.append('file', new Blob([photo], { type: 'image/jpeg' }), 'photo.jpg')
      const uploaded = (await (await fetch(`${server.url}/api/v2/files`, { method: 'POST', headers: auth, body })).json()) as { id: number; variants: Record<string, string> }
      const url = `${server.url}${uploaded.variants.medium}`
      firstMs.push(await timed(async () => void (await (await fetch(url, { headers: auth })).arrayBuffer())))
      for (let read = 0; read < CACHED_READS; read++) cachedMs.push(await timed(async () => void (await (await fetch(url, { headers: auth })).arrayBuffer())))
      await remove(uploaded)
    }
    const cached = [...cachedMs].sort((a, b) => a - b)
    const variant = { source: '4000×3000 JPEG → medium (1280 wide WebP)', firstMs: firstMs.map((ms) => Math.round(ms)), cachedP50Ms: nearestRank(cached, 0.5) ?? 0, cachedP99Ms: nearestRank(cached, 0.99) ?? 0 }
    console.log(`   variant ${variant.source}: first ${variant.firstMs.join(', ')} ms, cached p50 ${variant.cachedP50Ms.toFixed(1)} ms, p99 ${variant.cachedP99Ms.toFixed(1)} ms`)
    return {
      fileMegabytes: data.length / 1e6,
      filesPerRound: FILES_PER_ROUND,
      throughput,
      ratios: { form: throughput.form / throughput.fsWrite, uploadUrl: throughput.uploadUrl / throughput.fsWrite },
      megabytesPerCpuSecond,
      variant,
    }
  } finally {
    await server.stop()
    await rm(scratch, { recursive: true, force: true })
  }
}
