// The ZIP of a data export, written as it is read: each JSON file is produced row by row from the
// database while the archive streams to the store, and each stored file is opened only when its
// turn in the archive comes, so a user with 100,000 posts costs no more memory than one with ten.
import { Readable } from 'node:stream'

import { ZipFile } from 'yazl'

/** One JSON file of the export: one object, or rows written as a JSON array. */
export type ExportSection =
  | { file: string; describes: string; object: () => Promise<unknown> }
  | { file: string; describes: string; rows: () => AsyncIterable<unknown> }

/** A stored file of the user's, copied into the archive under `path`. */
export interface ExportAttachment {
  path: string
  open(): Promise<Readable | undefined>
}

export interface ExportContent {
  readme: string
  sections: readonly ExportSection[]
  attachments: () => AsyncIterable<ExportAttachment>
}

/** Rows are written in chunks of about this many bytes (a write per row would cost more than the row). */
const CHUNK_BYTES = 64 * 1024

/** The archive's bytes; `counted` is told of every row and file written (the job's progress). */
export function archiveOf(content: ExportContent, counted: () => void): Readable {
  const zip = new ZipFile()
  const output = zip.outputStream as Readable
  const fail = (error: unknown) => output.destroy(error instanceof Error ? error : new Error(String(error)))
  zip.on('error', fail)
  const mtime = new Date()
  zip.addBuffer(Buffer.from(content.readme), 'README.txt', { mtime })
  const lazily = (path: string, open: () => Promise<Readable>) =>
    zip.addReadStreamLazy(path, { mtime }, (done) => {
      open().then(
        (stream) => {
          stream.on('error', fail)
          done(null, stream)
        },
        (error: unknown) => fail(error),
      )
    })
  for (const section of content.sections) lazily(section.file, async () => Readable.from(jsonOf(section, counted), { objectMode: false }))
  // Entries are added as the list of files is read; the archive ends after the last.
  void (async () => {
    for await (const attachment of content.attachments())
      lazily(attachment.path, async () => {
        const stream = (await attachment.open()) ?? Readable.from([])
        counted()
        return stream
      })
    zip.end()
  })().catch(fail)
  return output
}

async function* jsonOf(section: ExportSection, counted: () => void): AsyncGenerator<Buffer> {
  if ('object' in section) {
    yield Buffer.from(`${JSON.stringify(await section.object(), null, 2)}\n`)
    counted()
    return
  }
  let chunk = '['
  let first = true
  for await (const row of section.rows()) {
    chunk += `${first ? '\n' : ',\n'}${JSON.stringify(row)}`
    first = false
    counted()
    if (chunk.length >= CHUNK_BYTES) {
      yield Buffer.from(chunk)
      chunk = ''
    }
  }
  yield Buffer.from(`${chunk}${first ? '' : '\n'}]\n`)
}
