// `npm run migrate|create-superuser|backup|restore -- …`: runs the command from the build
// (dist/cli, bundled: it starts in a fraction of a second) when the build is there and no source
// file is newer than it, as after `npm start`, and in the container image, which has no sources.
// Otherwise it runs the sources through tsx, where the development tools are installed: a
// command never builds first (a backup once spent 21 s rebuilding for a copy of 0.3 s).
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const [name = ''] = process.argv.splice(2, 1)
if (!/^[a-z-]+$/.test(name)) {
  process.stderr.write('usage: node scripts/run-cli.mjs <command> [arguments]\n')
  process.exit(2)
}
const root = fileURLToPath(new URL('..', import.meta.url))
const sources = path.join(root, 'src')
const source = path.join(sources, 'cli', `${name}.ts`)
const built = path.join(root, 'dist', 'cli', `${name}.js`)

/** The newest modification time of any file under `directory`. */
function newestChange(directory) {
  let newest = 0
  for (const entry of readdirSync(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs)
  }
  return newest
}

const builtIsCurrent = existsSync(built) && (!existsSync(sources) || statSync(built).mtimeMs >= newestChange(sources))
if (builtIsCurrent) {
  await import(pathToFileURL(built).href)
} else {
  const tsx = await import('tsx/esm/api').catch(() => undefined)
  if (tsx && existsSync(source)) {
    tsx.register()
    await import(pathToFileURL(source).href)
  } else {
    process.stderr.write(`${name}: neither ${built} nor ${source} with tsx is there (npm run build, or npm ci)\n`)
    process.exit(1)
  }
}
