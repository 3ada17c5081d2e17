// A feed of posts as RSS 2.0, Atom 1.0 or JSON Feed (version 1), written by the `feed` library: the
// service only says what the feed and each item are.
import { Feed } from 'feed'

import { escapeHtml } from '../../shared/escape-html.js'

export const FEED_FORMATS = ['rss', 'atom', 'json'] as const
export type FeedFormat = (typeof FEED_FORMATS)[number]

export const FEED_CONTENT_TYPES: Record<FeedFormat, string> = {
  rss: 'application/rss+xml; charset=utf-8',
  atom: 'application/atom+xml; charset=utf-8',
  json: 'application/feed+json; charset=utf-8',
}

export interface FeedItem {
  id: string
  link: string
  title: string
  /**
   * Its text as HTML: a Markdown post's sanitized HTML, or a plain text escaped. The only text of
   * an item: a summary cut from the raw text would be HTML to RSS readers, unescaped.
   */
  html: string
  published: Date
  updated: Date
  author: string | undefined
  tags: readonly string[]
}

export interface FeedMeta {
  title: string
  description: string
  /** The feed's own address (in each format). */
  self: Record<FeedFormat, string>
  /** The site the feed is of. */
  home: string
  updated: Date
  generator: string
}

export function renderFeed(format: FeedFormat, meta: FeedMeta, items: readonly FeedItem[]): string {
  const feed = new Feed({
    title: meta.title,
    description: meta.description,
    id: meta.self[format],
    link: meta.home,
    updated: meta.updated,
    generator: meta.generator,
    copyright: '',
    feedLinks: { rss: meta.self.rss, atom: meta.self.atom, json: meta.self.json },
  })
  for (const item of items) {
    feed.addItem({
      id: item.id,
      link: item.link,
      // Atom writes an item's title as HTML (type="html"), and RSS readers read it as HTML too: a
      // title is text, so it goes escaped there; JSON Feed's title is plain text.
      title: format === 'json' ? item.title : escapeHtml(item.title),
      content: item.html,
      date: item.updated,
      published: item.published,
      ...(item.author === undefined ? {} : { author: [{ name: item.author }] }),
      category: item.tags.map((tag) => ({ name: tag, term: tag })),
    })
  }
  if (format === 'rss') return feed.rss2()
  if (format === 'atom') return feed.atom1()
  return feed.json1()
}


/** A plain post's text as HTML: escaped, its paragraphs and line breaks kept. */
export function plainTextHtml(text: string): string {
  return escapeHtml(text)
    .split(/\n{2,}/)
    .map((paragraph) => `<p>${paragraph.replaceAll('\n', '<br>')}</p>`)
    .join('')
}
