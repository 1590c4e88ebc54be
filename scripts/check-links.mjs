// Offline check of the relative links in every Markdown file of the repository: the target file
// or folder exists, and a `#fragment` names a heading of the target (GitHub's anchors). Links
// with a scheme (https:, mailto:) are not fetched. `node scripts/check-links.mjs` prints the
// broken ones and exits 1; test/tools/links.test.ts runs the same check.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../', import.meta.url))

/** Folders never searched: installs, builds, reports, and scratch work. */
const SKIPPED = new Set([
  'node_modules',
  'dist',
  'coverage',
  '.tap',
  '.git',
  'results',
  'scratch',
  'data',
  '.pgdata',
])

/** The Markdown files under `dir`, skipped folders left out. */
export function markdownFiles(dir = ROOT) {
  const found = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name)) found.push(...markdownFiles(join(dir, entry.name)))
    } else if (entry.name.endsWith('.md')) {
      found.push(join(dir, entry.name))
    }
  }
  return found
}

/** Markdown with its fenced code blocks blanked (the lines are kept, their text is not). */
function withoutFences(text) {
  return text.replace(
    /^( {0,3})(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^\1?\2[^\n]*$|(?![\s\S]))/gm,
    (block) => block.replace(/[^\n]/g, ' '),
  )
}

/** Markdown with fenced code and inline code blanked: links there are not links. */
function withoutCode(text) {
  return withoutFences(text).replace(/(`+)(?:(?!\1)[^\n])+?\1/g, (code) => ' '.repeat(code.length))
}

/** The link targets of a Markdown text: inline `[text](target)` and `[label]: target` definitions. */
export function linkTargets(text) {
  const clean = withoutCode(text)
  const targets = []
  for (const match of clean.matchAll(/\]\(\s*(<[^>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)/g)) {
    targets.push(match[1].replace(/^<|>$/g, ''))
  }
  for (const match of clean.matchAll(/^ {0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+)/gm)) {
    targets.push(match[1].replace(/^<|>$/g, ''))
  }
  return targets
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

/** The anchors of a Markdown text's headings, repeated ones numbered as GitHub numbers them. */
export function anchors(text) {
  const seen = new Map()
  const found = new Set()
  for (const match of withoutFences(text).matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$/gm)) {
    const base = slug(match[1])
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    found.add(count === 0 ? base : `${base}-${count}`)
  }
  for (const match of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) found.add(match[1])
  return found
}

/** The broken relative links of one Markdown file, as `file: target (why)` lines. */
export function brokenLinks(file) {
  const text = readFileSync(file, 'utf8')
  const broken = []
  for (const target of linkTargets(text)) {
    if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue
    const [pathPart, fragment] = target.split('#', 2)
    const path = decodeURIComponent(pathPart.split('?')[0])
    const resolved = path === '' ? file : resolve(dirname(file), path)
    const where = `${relative(ROOT, file)}: ${target}`
    if (relative(ROOT, resolved).startsWith('..')) {
      broken.push(`${where} (outside the repository: broken in a clone and on the registry)`)
      continue
    }
    if (!existsSync(resolved)) {
      broken.push(`${where} (no such file)`)
      continue
    }
    if (fragment === undefined || fragment === '' || !resolved.endsWith('.md')) continue
    if (statSync(resolved).isDirectory()) continue
    if (!anchors(readFileSync(resolved, 'utf8')).has(decodeURIComponent(fragment))) {
      broken.push(`${where} (no heading with that anchor)`)
    }
  }
  return broken
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const broken = markdownFiles().flatMap(brokenLinks)
  for (const line of broken) console.error(line)
  process.exitCode = broken.length > 0 ? 1 : 0
}
