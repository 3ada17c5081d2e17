// Outside production a missing SECRET_KEY is generated once and kept in the data directory
// (mode 0600), so tokens survive restarts and every process on that directory shares it.
import { randomBytes } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'

export const SECRET_KEY_FILE = 'secret_key'

export async function loadOrCreateSecretKey(dataDir: string): Promise<{ key: string; created: boolean; file: string }> {
  const file = path.join(dataDir, SECRET_KEY_FILE)
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  try {
    // 'wx' fails if the file exists, so two processes starting at once cannot both write a key.
    const key = randomBytes(48).toString('base64url')
    await writeFile(file, key, { mode: 0o600, flag: 'wx' })
    return { key, created: true, file }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  const key = (await readFile(file, 'utf8')).trim()
  if (key.length < 32) throw new Error(`${file} holds a key shorter than 32 characters; delete it or set SECRET_KEY`)
  return { key, created: false, file }
}
