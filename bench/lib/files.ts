// Files in the benchmark: upload throughput through the service (a multipart form, and the local
// driver's upload URL) against a plain fs write of the same bytes; photo uploads (a 200 KB JPEG
// with EXIF and GPS, several clients at once): their rate, CPU and the service's peak memory; and
// an image variant's first (rendered) and cached (read from the store) latency. On the service as
// `npm start` runs it.
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
  /** A process's resident memory now, in MB. */
  rssMb(pid: number): number
  rounds: number
}

export interface PhotoUploadsResult {
  photoBytes: number
  clients: number
  uploads: number
  /** Uploads answered 201 a second, the median of the rounds. */
  perSecond: number
  /** The service's CPU per upload, in ms (the median of the rounds). */
  cpuMsPerUpload: number
  /** The service's resident memory before the uploads and its peak during them, in MB. */
  rssBeforeMb: number
  peakRssMb: number
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
  photos: PhotoUploadsResult
  variant: { source: string; firstMs: number[]; cachedP50Ms: number; cachedP99Ms: number }
}

const PHOTO_CLIENTS = 8
const PHOTOS_PER_ROUND = 160

/** About 200 KB of JPEG as a phone writes one, with its camera and GPS in EXIF. */
async function photoJpeg(): Promise<Buffer> {
  const width = 1024
  const height = 768
  const pixels = Buffer.alloc(width * height * 3)
  for (let index = 0; index < pixels.length; index++) pixels[index] = ((index * 7919) % 251) ^ (index >> 11)
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 50 })
    .withExif({ IFD0: { Make: 'BenchCam', Model: 'Phone 1' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1', GPSLongitudeRef: 'W', GPSLongitude: '0/1 7/1 0/1' } })
    .toBuffer()
}

/** `clients` uploading the photo at once until `count` are stored: uploads a second, the service's CPU per upload and its peak memory. */
async function photoUploads(tools: FilesBenchTools, server: { url: string; process: { pid?: number } }, auth: Record<string, string>, photo: Buffer): Promise<PhotoUploadsResult> {
  const pid = server.process.pid as number
  const rssBeforeMb = tools.rssMb(pid)
  let peakRssMb = rssBeforeMb
  const sampler = setInterval(() => (peakRssMb = Math.max(peakRssMb, tools.rssMb(pid))), 50)
  const upload = async () => {
    const body = new FormData()
    body.append('file', new Blob([photo], { type: 'image/jpeg' }), 'photo.jpg')
    const answer = await fetch(`${server.url}/api/v2/files`, { method: 'POST', headers: auth, body })
    if (answer.status !== 201) throw new Error(`bench: a photo upload answered ${answer.status} ${await answer.text()}`)
    await answer.arrayBuffer()
  }
  const perSecond: number[] = []
  const cpuMs: number[] = []
  try {
    for (let round = 0; round < tools.rounds; round++) {
      let left = PHOTOS_PER_ROUND
      const cpuBefore = tools.cpuMicros(pid) ?? 0
      const ms = await timed(async () => {
        await Promise.all(
          Array.from({ length: PHOTO_CLIENTS }, async () => {
            while (left-- > 0) await upload()
          }),
        )
      })
      perSecond.push(PHOTOS_PER_ROUND / (ms / 1000))
      cpuMs.push(((tools.cpuMicros(pid) ?? 0) - cpuBefore) / 1000 / PHOTOS_PER_ROUND)
    }
  } finally {
    clearInterval(sampler)
  }
  return {
    photoBytes: photo.length,
    clients: PHOTO_CLIENTS,
    uploads: PHOTOS_PER_ROUND,
    perSecond: median(perSecond),
    cpuMsPerUpload: median(cpuMs),
    rssBeforeMb: Math.round(rssBeforeMb),
    peakRssMb: Math.round(Math.max(peakRssMb, tools.rssMb(pid))),
  }
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

    const photos = await photoUploads(tools, server, auth, await photoJpeg())
    console.log(
      `   photo uploads (${(photos.photoBytes / 1000).toFixed(0)} KB JPEG with EXIF and GPS, ${photos.clients} clients, ${photos.uploads} a round): ${photos.perSecond.toFixed(1)}/s, ${photos.cpuMsPerUpload.toFixed(1)} ms CPU each; RSS ${photos.rssBeforeMb} MB before, peak ${photos.peakRssMb} MB`,
    )

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
      photos,
      variant,
    }
  } finally {
    await server.stop()
    await rm(scratch, { recursive: true, force: true })
  }
}
