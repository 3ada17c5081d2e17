// Entry point. The compile cache must be on before the service's modules load, so the rest comes
// through a dynamic import (the build keeps it a chunk of its own).
import { enableCompileCache } from './compile-cache.js'

enableCompileCache()
await import('./run-server.js')
