/**
 * Every relative link in every Markdown file of the repository resolves in a clone: its file or
 * folder exists inside the repository, and its `#fragment` names a heading there. Offline: links
 * with a scheme are not fetched. The check itself is scripts/check-links.mjs.
 */
import fc from 'fast-check'
import { test } from 'tap'
import {
  anchors,
  brokenLinks,
  linkTargets,
  markdownFiles,
  slug,
  // @ts-expect-error: a plain .mjs script, without declarations
} from '../../scripts/check-links.mjs'

test('every relative link in every README and doc resolves', async (t) => {
  const files: string[] = markdownFiles()
  t.ok(
    files.some((f) => f.endsWith('docs/conventions.md')),
    'docs/ is searched',
  )
  t.ok(
    files.some((f) => f.endsWith('packages/errors/README.md')),
    'packages/ are searched',
  )
  t.same(files.flatMap(brokenLinks), [])
})

test('link targets: inline and reference links, none from code', async (t) => {
  const text = [
    'See [a](../a.md#x) and ![img](./b.png "title") and [c](<d e.md>).',
    '[ref]: ./ref.md',
    '`[not](code.md)`',
    '```',
    '[not](fenced.md)',
    '```',
    '[web](https://example.com)',
  ].join('\n')
  t.same(linkTargets(text), ['../a.md#x', './b.png', 'd e.md', 'https://example.com', './ref.md'])
})

test('anchors as GitHub makes them, repeated headings numbered', async (t) => {
  t.equal(
    slug('Answers before a request exists: `clientErrorHandler`'),
    'answers-before-a-request-exists-clienterrorhandler',
  )
  t.equal(slug('Partial updates (PATCH)'), 'partial-updates-patch')
  t.same([...anchors('# A\n## A\n```\n# not a heading\n```\n### B c')], ['a', 'a-1', 'b-c'])
})

test('a plain link to any path comes back as written', async () => {
  const segment = fc.stringMatching(/^[A-Za-z0-9_.-]{1,12}$/)
  fc.assert(
    fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.string(), (parts, words) => {
      const path = parts.join('/')
      const text = `${words.replace(/[[\]()`<>\n]/g, ' ')} [x](${path})`
      return linkTargets(text).includes(path)
    }),
  )
})
