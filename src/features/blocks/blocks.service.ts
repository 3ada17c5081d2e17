// Blocking: a user blocks another. The blocked person's posts and comments leave the blocker's
// lists and stream (the lists carry the condition blocks.repository.ts gives them; the stream asks
// `blockedByEach`), and they may not comment on or react to the blocker's posts and comments
// (403 `blocked`, which names nobody: `assertNotBlocked`, called by the comments and reactions slices).
import type { ClientInfo } from '../../shared/client-info.js'
import { DomainError, RuleViolation } from '../../shared/errors.js'
import type { Paged, PageRequest, RowWindow } from '../../shared/paging.js'
import { everyRowAfter, fetchPaged } from '../../shared/paging.js'
import { toIsoString } from '../../shared/timestamps.js'
import type { UserService } from '../users/index.js'
import type { BlocksRepository } from './blocks.repository.js'

export interface Block {
  userId: number
  createdAt: string
}

export interface BlockServiceDependencies {
  blocks: BlocksRepository
  users: Pick<UserService, 'get'>
}

const toBlock = (row: { blocked_id: number; created_at: Date | string }): Block => ({ userId: Number(row.blocked_id), createdAt: toIsoString(row.created_at) })

export class BlockService {
  constructor(private readonly dependencies: BlockServiceDependencies) {}

  /** Blocks a live user (404 `user_not_found` otherwise; 422 for oneself); whether the block is new. */
  async block(blockerId: number, userId: number, _client: ClientInfo): Promise<{ block: Block; created: boolean }> {
    const { blocks, users } = this.dependencies
    if (userId === blockerId) throw new RuleViolation('user_id', 'You cannot block yourself', 'not_self')
    await users.get(userId)
    const created = await blocks.insertBlock(blockerId, userId)
    const row = await blocks.findBlock(blockerId, userId)
    // Unblocked between the two statements by another request of theirs: answered as blocked now.
    return { block: row ? toBlock(row) : { userId, createdAt: new Date().toISOString() }, created }
  }

  /** Lifts a block (none: nothing changes). */
  async unblock(blockerId: number, userId: number): Promise<void> {
    await this.dependencies.blocks.deleteBlock(blockerId, userId)
  }

  list(blockerId: number, request: PageRequest): Promise<Paged<Block>> {
    const { blocks } = this.dependencies
    return fetchPaged(request, { rows: (window: RowWindow) => blocks.blocksPage(blockerId, window), count: () => blocks.countBlocks(blockerId), keyOf: (row) => Number(row.blocked_id) }, toBlock)
  }

  /** 403 `blocked` when any of these people (a post's author, a comment's) blocked the user. */
  async assertNotBlocked(ownerIds: readonly number[], userId: number): Promise<void> {
    const owners = [...new Set(ownerIds)].filter((id) => id !== userId)
    if ((await this.dependencies.blocks.blockersAmong(owners, userId)).length > 0) {
      throw new DomainError('forbidden', 'You cannot comment on or react to this', { code: 'blocked' })
    }
  }

  /** Everyone each of these users blocked (the streams of a process, read once per check). */
  async blockedByEach(userIds: readonly number[]): Promise<Map<number, Set<number>>> {
    const blocked = new Map<number, Set<number>>(userIds.map((id) => [id, new Set<number>()]))
    if (userIds.length === 0) return blocked
    for (const row of await this.dependencies.blocks.blockedByEach(userIds)) blocked.get(Number(row.blocker_id))?.add(Number(row.blocked_id))
    return blocked
  }

  /** Every block of a user's, for their data export. */
  async *everyBlockOf(userId: number): AsyncGenerator<{ user_id: number; created_at: string }> {
    const rows = everyRowAfter((after: number, limit) => this.dependencies.blocks.blocksPage(userId, { offset: 0, limit, after }), (row) => Number(row.blocked_id), 0)
    for await (const row of rows) yield { user_id: Number(row.blocked_id), created_at: toIsoString(row.created_at) }
  }
}
