// The blocks slice's public face: what other slices may use. Everything else in this folder is the
// slice's own (eslint.config.js refuses a reach past this file).
export type { Block, BlockService } from './blocks.service.js'
