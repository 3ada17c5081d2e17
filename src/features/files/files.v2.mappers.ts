import type { FileView, Usage } from './file.js'

export const toFileRead = (file: FileView) => ({
  id: file.id,
  name: file.name,
  content_type: file.contentType,
  size: file.size,
  sha256: file.sha256 ?? '',
  url: file.url,
  variants: file.variants,
  post_id: file.postId,
  created_at: file.createdAt,
})

export const toUsageRead = (usage: Usage) => ({ bytes: usage.bytes, files: usage.files, limit_bytes: usage.limitBytes, limit_files: usage.limitFiles })
