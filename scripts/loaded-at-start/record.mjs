// Preloaded with --import (or NODE_OPTIONS) to record every file a process loads, one path a line,
// in LOADED_MODULES_FILE: ES modules as they are resolved, CommonJS ones as they are required.
// The benchmark's start-up lines and the start-up test read it with ./packages.mjs. Measuring only:
// it costs a little at each load.
import { appendFileSync, writeFileSync } from 'node:fs'
import Module, { register } from 'node:module'

const file = process.env.LOADED_MODULES_FILE
if (file) {
  writeFileSync(file, '')
  register(
    `data:text/javascript,${encodeURIComponent(`
      import { appendFileSync } from 'node:fs'
      export async function resolve(specifier, context, next) {
        const result = await next(specifier, context)
        if (result.url.startsWith('file:')) appendFileSync(${JSON.stringify(file)}, result.url + '\\n')
        return result
      }`)}`,
  )
  const load = Module._load
  Module._load = function recorded(request, parent, isMain) {
    const loaded = load.call(this, request, parent, isMain)
    try {
      const resolved = Module._resolveFilename(request, parent, isMain)
      if (resolved.startsWith('/')) appendFileSync(file, `${resolved}\n`)
    } catch {
      // a built-in module
    }
    return loaded
  }
}

