// Files as a post's attachments: the posts feature calls these inside its own unit of work
// (attaching on create and update, removing with a permanent delete) and to read a page's files.
import type { Unit } from '../../db/unit-of-work.js'
import { DomainError, RuleViolation } from '../../shared/errors.js'
import type { FileView } from './file.js'
import { toStoredFile } from './file.js'
import { removeFiles } from './file-removal.js'
import type { FilesRepository } from './files.repository.js'
import type { FileService } from './files.service.js'

export const NOT_YOUR_FILE = "Attachments must be the post author's own completed files, attached by that author"
export const FILE_ATTACHED_ELSEWHERE = 'A file belongs to another post'

export class PostAttachments {
  constructor(
    private readonly files: FilesRepository,
    private readonly service: FileService,
  ) {}

  /**
   * Makes `fileIds` the post's attachments (detaching the others). A file new to the post must be a
   * completed file of its owner's, attached by that owner, who is the post's author: whoever else
   * may edit the post (an organization's admin, a superuser) keeps, reorders or detaches what is
   * there, and never attaches someone's other files (reading them, making them public).
   */
  async attach(unit: Unit, post: { id: number; authorId: number }, fileIds: readonly number[], attachedBy: number): Promise<void> {
    const ids = [...new Set(fileIds)]
    const rows = await this.files.in(unit).findFilesForChange(ids)
    const mayAttach = (row: (typeof rows)[number]) => row.post_id === post.id || (row.owner_id === post.authorId && row.owner_id === attachedBy)
    if (rows.length !== ids.length || rows.some((row) => row.status !== 'ready' || !mayAttach(row))) {
      throw new RuleViolation('attachments', NOT_YOUR_FILE, 'attachment')
    }
    if (rows.some((row) => row.post_id !== null && row.post_id !== post.id)) {
      throw new DomainError('conflict', FILE_ATTACHED_ELSEWHERE, { code: 'file_attached_elsewhere' })
    }
    await this.files.in(unit).setAttachments(post.id, ids)
  }

  /** Each post's attachments, oldest first; posts without any are left out. */
  async of(postIds: readonly number[], unit?: Unit): Promise<Map<number, FileView[]>> {
    const attached = new Map<number, FileView[]>()
    const files = unit ? this.files.in(unit) : this.files
    for (const row of await files.filesOfPosts([...new Set(postIds)])) {
      const file = this.service.viewOf(toStoredFile(row))
      const list = attached.get(file.postId!) ?? []
      list.push(file)
      attached.set(file.postId!, list)
    }
    return attached
  }

  /** A post removed for good takes its files with it (a soft delete keeps them, unreadable, for a restore). */
  async removeAllOfPost(unit: Unit, postId: number): Promise<void> {
    await removeFiles(this.service.removal, unit, await this.files.in(unit).fileIdsOfPost(postId))
  }

  /** A user removed for good takes every file they own, attached or not. */
  async removeAllOwnedBy(unit: Unit, userId: number): Promise<void> {
    await removeFiles(this.service.removal, unit, await this.files.in(unit).fileIdsOwnedBy(userId))
  }
}
