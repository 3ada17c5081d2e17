// Markdown to sanitized HTML against a published XSS corpus (test/helpers/xss-corpus.ts): every
// string of it, in every place Markdown can put it, renders to HTML whose parsed elements and
// attributes hold no script, no event handler, no style but table alignment and no URL but
// http(s), mailto links and relative ones; and what Markdown is for still renders.
import { describe, expect, it } from 'vitest'

import { unsafeParts } from '../../../test/helpers/html-safety.js'
import { markdownXssCases, SCRIPT_INJECTIONS } from '../../../test/helpers/xss-corpus.js'
import { EXTERNAL_LINK_REL, htmlOf, renderMarkdown } from './markdown.js'

describe('Markdown rendering', () => {
  it('renders what Markdown is for: headings, emphasis, lists, code, tables, links and images', () => {
    const html = renderMarkdown(
      ['# Title', '', 'Some *em* and **strong** and ~~gone~~ text.', '', '- one', '- two', '', '3. three', '', '> quoted', '', '```ts', 'const a = 1 < 2', '```', '', '| left | right |', '|:--|--:|', '| a | b |', '', '[site](https://example.com) [page](/about) [mail](mailto:a@example.com) ![cat](https://example.com/cat.png "A cat")', '', 'https://auto.example.com'].join('\n'),
    )
    expect(html).toContain('<h1>Title</h1>')
    expect(html).toContain('<em>em</em> and <strong>strong</strong> and <s>gone</s>')
    expect(html).toContain('<ul>\n<li>one</li>')
    expect(html).toContain('<ol start="3">')
    expect(html).toContain('<blockquote>')
    expect(html).toContain('<pre><code class="language-ts">const a = 1 &lt; 2')
    expect(html).toContain('<th style="text-align:left">left</th>')
    expect(html).toContain(`<a href="https://example.com" rel="${EXTERNAL_LINK_REL}">site</a>`)
    expect(html).toContain('<a href="/about">page</a>')
    expect(html).toContain('<a href="mailto:a@example.com">mail</a>')
    expect(html).toContain('<img src="https://example.com/cat.png" alt="cat" title="A cat" />')
    expect(html).toContain(`<a href="https://auto.example.com" rel="${EXTERNAL_LINK_REL}">https://auto.example.com</a>`)
    expect(unsafeParts(html)).toEqual([])
  })

  it('keeps raw HTML as text, and a plain post has no HTML', () => {
    expect(renderMarkdown('<b onclick="x()">bold</b>')).toBe('<p>&lt;b onclick="x()"&gt;bold&lt;/b&gt;</p>\n')
    expect(htmlOf('plain', '# not a heading')).toBeNull()
  })

  it(`lets nothing unsafe through from the corpus's ${SCRIPT_INJECTIONS.length} script injections in every place Markdown puts them`, () => {
    const cases = markdownXssCases()
    expect(SCRIPT_INJECTIONS.length).toBeGreaterThan(200)
    const unsafe = cases.map((text) => ({ text, unsafe: unsafeParts(renderMarkdown(text)) })).filter((result) => result.unsafe.length > 0)
    expect(unsafe).toEqual([])
  })

  it('finds what it looks for: the check itself flags unsafe HTML', () => {
    expect(unsafeParts('<p><script>alert(1)</script><img src="x" onerror="alert(1)"><a href="JaVa&#x09;script:alert(1)">a</a><a href="https://e.com">b</a><a href="/\\evil.example">c</a></p>')).toEqual([
      '<script> element',
      'onerror on <img>',
      'href="JaVa\tscript:alert(1)" on <a> (scheme javascript)',
      'external link without rel: https://e.com',
      'href="/\\evil.example" on <a> (protocol-relative)',
    ])
  })
})
