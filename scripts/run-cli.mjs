// `npm run migrate|create-superuser|backup|restore -- …`: runs the command from the sources when
// the development tools are installed (no build first: a backup once spent 21 s rebuilding the
// service and the console for a copy of 0.3 s), and from dist/ where they are not (the container
// image, which keeps production dependencies only).
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const [name = ''] = process.argv.splice(2, 1)
if (!/^[a-z-]+$/.test(name)) {
  process.stderr.write('usage: node scripts/run-cli.mjs <command> [arguments]\n')
  process.exit(2)
}
const source = fileURLToPath(new URL(`../src/cli/${name}.ts`, import.meta.url))
const built = fileURLToPath(new URL(`../dist/cli/${name}.js`, import.meta.url))
const tsx = await import('tsx/esm/api').catch(() => undefined)
if (tsx && existsSync(source)) {
  tsx.register()
  await import(source)
} else if (existsSync(built)) {
  await import(built)
} else {
  process.stderr.write(`${name}: neither ${source} with tsx nor ${built} is there (npm ci, or npm run build)\n`)
  process.exit(1)
}
