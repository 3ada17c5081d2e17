// The packages a process loaded, from what record.mjs wrote: those Node loaded from node_modules,
// and those bundled into the build's chunks it loaded (the build's metafile says which package
// each chunk's bytes come from), each with the bytes of it the chunks hold.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const PACKAGE = /node_modules\/((?:@[^/]+\/)?[^/]+)\//

/** `recorded`: the text record.mjs wrote; `buildDir`: the build whose build-meta.json maps its chunks. */
export function loadedPackages(recorded, buildDir) {
  const paths = recorded
    .split('\n')
    .filter(Boolean)
    .map((line) => (line.startsWith('file:') ? fileURLToPath(line) : line))
  const meta = JSON.parse(readFileSync(path.join(buildDir, 'build-meta.json'), 'utf8'))
  const root = path.dirname(buildDir)
  const packages = new Map()
  const add = (name, bytes, how) => {
    const known = packages.get(name) ?? { name, bundledBytes: 0, fromNodeModules: false }
    known.bundledBytes += bytes
    if (how === 'node_modules') known.fromNodeModules = true
    packages.set(name, known)
  }
  const chunks = new Set()
  for (const loaded of new Set(paths)) {
    if (loaded.startsWith(buildDir + path.sep)) chunks.add(path.relative(root, loaded))
    else {
      const match = PACKAGE.exec(loaded)
      if (match) add(match[1], 0, 'node_modules')
    }
  }
  for (const [output, info] of Object.entries(meta.outputs)) {
    if (!chunks.has(output)) continue
    for (const [input, { bytesInOutput }] of Object.entries(info.inputs)) {
      const match = PACKAGE.exec(input)
      if (match) add(match[1], bytesInOutput, 'bundle')
    }
  }
  return [...packages.values()].sort((a, b) => b.bundledBytes - a.bundledBytes || a.name.localeCompare(b.name))
}
