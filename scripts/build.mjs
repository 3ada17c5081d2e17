// The server's build: esbuild bundles src/server.ts, the CLI commands and the SQLite driver's
// loader (the benchmark's bare server uses it) into dist/, with the JavaScript dependencies
// inside. Node.js then reads a few files as it starts instead of some 1,400 (typebox and Kysely
// alone are 640 modules), which cut the time to import the service from 430-500 ms to about 170
// (docs/performance.md, "Start-up").
//
// Left outside the bundle: native addons, and every package the service imports with import()
// (the PostgreSQL driver, Redis, the mailer, OpenTelemetry, ...: loaded only when a setting or a
// first use asks for them). Node loads those from node_modules exactly as it does for the
// sources: a bundled CommonJS package reached through import() would offer only its default
// export, not its named ones, and a package both bundled and loaded by Node would exist twice.
// Packages that read files next to their own code (Swagger UI's assets) are bundled with
// __dirname found again at run time in node_modules, which a built service keeps. Types are
// checked by `npm run typecheck`, not here.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { build } from 'esbuild'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
const outdir = path.resolve(root, process.argv[2] ?? 'dist')
// The output directory is emptied first: only dist/ or a scratch build directory of the project (the tests') may be.
if (path.dirname(outdir) !== root || !/^(dist|\.build-[\w-]+)$/.test(path.basename(outdir))) {
  throw new Error(`build: the output directory must be dist/ or .build-<name>/ in ${root}, not ${outdir}`)
}

/** Every package named in an import() under src/. */
function importedOnDemand() {
  const names = new Set()
  for (const file of readdirSync(path.join(root, 'src'), { recursive: true })) {
    if (!file.endsWith('.ts')) continue
    for (const match of readFileSync(path.join(root, 'src', file), 'utf8').matchAll(/\bimport\(\s*['"]([^.'"][^'"]*)['"]\s*\)/g)) names.add(match[1])
  }
  return [...names]
}

const EXTERNAL = [
  // Native addons, loaded through createRequire (src/db/sqlite-driver.ts, the hashing workers).
  'better-sqlite3',
  'better-sqlite3-node20',
  '@node-rs/argon2',
  ...importedOnDemand(),
]

/** CommonJS packages whose code uses __dirname for files of their own (assets, package.json). */
const READ_OWN_FILES = ['@fastify/swagger-ui', '@fastify/swagger']

/**
 * Gives each module of those packages the __dirname it has in node_modules, found at run time
 * from the package's place (a bundled module has no __dirname of its own).
 */
const ownDirectoryAtRunTime = {
  name: 'own-directory-at-run-time',
  setup(builder) {
    const packages = READ_OWN_FILES.map((name) => ({ name, dir: path.join(root, 'node_modules', name) + path.sep }))
    builder.onLoad({ filter: /\.js$/ }, (args) => {
      const owner = packages.find((candidate) => args.path.startsWith(candidate.dir))
      if (owner === undefined) return undefined
      const source = readFileSync(args.path, 'utf8')
      if (!source.includes('__dirname')) return undefined
      const inside = path.relative(owner.dir, path.dirname(args.path)).split(path.sep).join('/')
      const packageDir = `require('node:path').dirname(require.resolve(${JSON.stringify(`${owner.name}/package.json`)}))`
      const dirname = `var __dirname = require('node:path').join(${packageDir}, ${JSON.stringify(inside)});\n`
      return { contents: dirname + source, loader: 'js', resolveDir: path.dirname(args.path) }
    })
  },
}

const cli = readdirSync(path.join(root, 'src/cli')).filter((name) => name.endsWith('.ts'))

// The admin console's build lives in dist/admin-console (npm run build:admin); only the server's files go.
for (const entry of existsSync(outdir) ? readdirSync(outdir, { withFileTypes: true }) : []) {
  if (entry.name === 'admin-console') continue
  rmSync(path.join(outdir, entry.name), { recursive: true, force: true })
}

const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/server.ts', 'src/db/sqlite-driver.ts', ...cli.map((name) => `src/cli/${name}`)],
  outdir,
  outbase: 'src',
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  plugins: [ownDirectoryAtRunTime],
  sourcemap: 'linked',
  // No comments or indentation: less to read and parse at start, and no comment with a character
  // past Latin-1 (an em dash, an ellipsis) that makes V8 hold a whole chunk's source in two bytes
  // a character. Names are kept, so stack traces read; the source maps give their lines
  // (node --enable-source-maps).
  minifyWhitespace: true,
  legalComments: 'none',
  // Which package each byte of each chunk comes from: the benchmark and the start-up test name
  // the packages a start loads from it.
  metafile: true,
  logLevel: 'warning',
  // CommonJS dependencies call require() for Node's own modules, which ES modules do not have.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
})
writeFileSync(path.join(outdir, 'build-meta.json'), JSON.stringify(result.metafile))
