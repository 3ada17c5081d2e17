// Builds the admin console into dist/admin-console, which the service serves at /admin/
// (src/api/admin-console.routes.ts). `npm run build` runs it; nothing is fetched at run time.
import { fileURLToPath } from 'node:url'

import { defineConfig } from 'vite'

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/admin/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/admin-console', import.meta.url)),
    emptyOutDir: true,
    // The CSP allows no inline script: no preload polyfill, no inlined assets.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  logLevel: 'warn',
})
