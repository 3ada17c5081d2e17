// The project's docs stand alone: every relative link points at a file of the repository (and an
// anchor, when it names one, at a heading of that file), and no doc leans on a document outside it.
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'

import { expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')

async function markdownFiles(): Promise<string[]> {
  const docs = (await readdir(path.join(root, 'docs'), { recursive: true })).filter((file) => file.endsWith('.md')).map((file) => path.join('docs', file))
  return ['README.md', 'CONTRIBUTING.md', 'SECURITY.md', 'src/db/fast-path/README.md', ...docs]
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')

async function anchorsOf(file: string): Promise<Set<string>> {
  const text = await readFile(path.join(root, file), 'utf8')
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1] ?? '')))
}

it('links only to files and headings that exist', async () => {
  const broken: string[] = []
  for (const file of await markdownFiles()) {
    const text = await readFile(path.join(root, file), 'utf8')
    for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue
      const [link = '', anchor] = target.split('#')
      const linked = link === '' ? file : path.normalize(path.join(path.dirname(file), link))
      const exists = await readFile(path.join(root, linked)).then(() => true, () => readdir(path.join(root, linked)).then(() => true, () => false))
      if (!exists) broken.push(`${file}: ${target}`)
      else if (anchor && linked.endsWith('.md') && !(await anchorsOf(linked)).has(anchor)) broken.push(`${file}: ${target} (no such heading)`)
    }
  }
  expect(broken).toEqual([])
})

it('never points at a document outside the repository', async () => {
  const outside: string[] = []
  for (const file of await markdownFiles()) {
    const text = await readFile(path.join(root, file), 'utf8')
    // A code sample's import ('../../shared/errors.js') is relative to its source file, not to the document.
    const prose = text.replace(/^```[\s\S]*?^```$/gm, '')
    if (/SPEC\.md|DESIGN\.md/.test(text) || /\.\.\/shared\//.test(prose)) outside.push(file)
  }
  expect(outside).toEqual([])
})
