// Blocking: a user's blocks, what the lists leave out for them, and whom they refuse comments and reactions from.
import { type Feature, routes } from '../feature.js'
import { blocksFunctions, blocksReadTargets } from './blocks.repository.js'
import { BlockService } from './blocks.service.js'
import blocksV2Routes from './blocks.v2.routes.js'
import { blocksErrorCodes } from './errors.js'

interface BlocksServices {
  blocks: BlockService
}

export const blocksFeature: Feature<BlocksServices> = {
  name: 'blocks',
  errors: blocksErrorCodes,
  needs: ['users'],
  create: ({ bind, peers }) => ({ blocks: new BlockService({ blocks: bind(blocksFunctions, blocksReadTargets), users: peers.users }) }),
  migrations: ['2026-12-09-03-blocks'],
  routes: { v2: [routes(blocksV2Routes)] },
}
