// A Markdown post's HTML: rendered once when its text is written (not on every read) by
// markdown-it, then passed through sanitize-html's allow-list, so that what a frontend puts in its
// page holds no script, no event handler and no link or image outside http(s) (docs/api.md
// "Markdown"). Two libraries on purpose: markdown-it already escapes raw HTML (`html: false`) and
// refuses `javascript:` links; the sanitizer holds even if a renderer upgrade or plugin lets one through.
import MarkdownIt from 'markdown-it'
import sanitizeHtml from 'sanitize-html'

export const POST_FORMATS = ['plain', 'markdown'] as const
export type PostFormat = (typeof POST_FORMATS)[number]

/** Added to every link that leaves the page's site: no window.opener, no ranking given, user content. */
export const EXTERNAL_LINK_REL = 'noopener nofollow ugc'

const markdown = new MarkdownIt('default', { html: false, linkify: true, typographer: false })

/** Whether an href names another site (an absolute http(s) URL); relative links and mailto stay as they are. */
const isExternal = (href: string | undefined): boolean => href !== undefined && /^https?:/i.test(href)

const SANITIZE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'code', 'em', 'strong', 's', 'ul', 'ol', 'li', 'a', 'img', 'table', 'thead', 'tbody', 'tr', 'th', 'td'],
  allowedAttributes: { a: ['href', 'title', 'rel'], img: ['src', 'alt', 'title'], ol: ['start'], th: ['style'], td: ['style'], code: ['class'] },
  allowedClasses: { code: ['language-*'] },
  // Tables' column alignment is the only style markdown-it writes.
  allowedStyles: { th: { 'text-align': [/^(?:left|right|center)$/] }, td: { 'text-align': [/^(?:left|right|center)$/] } },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'escape',
  transformTags: {
    a: (tagName, attribs) => {
      const { rel: _rel, ...rest } = attribs
      return { tagName, attribs: isExternal(attribs.href) ? { ...rest, rel: EXTERNAL_LINK_REL } : rest }
    },
  },
}

/** The sanitized HTML of a Markdown text. */
export function renderMarkdown(text: string): string {
  return sanitizeHtml(markdown.render(text), SANITIZE_OPTIONS)
}

/** What a post of this format and text keeps in `html`: the rendered Markdown, or null for plain text. */
export const htmlOf = (format: PostFormat, text: string): string | null => (format === 'markdown' ? renderMarkdown(text) : null)
