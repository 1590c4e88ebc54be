/** The footprint script's arithmetic, on made-up figures (`pnpm bench:footprint` measures). */
import { test } from 'tap'
// @ts-expect-error: a plain .mjs script, without declarations
import { countInstalled, evaluate, median, TARGETS } from '../bench/footprint.mjs'

test('median of odd and even counts', async (t) => {
  t.equal(median([3, 1, 2]), 2)
  t.equal(median([4, 1, 3, 2]), 2.5)
})

test('installed packages: the hidden lockfile entries, the project left out', async (t) => {
  t.equal(
    countInstalled({
      packages: { '': {}, 'node_modules/a': {}, 'node_modules/a/node_modules/b': {} },
    }),
    2,
  )
  t.equal(countInstalled({}), 0)
})

test('each figure against its target', async (t) => {
  const within = {
    packages: 75,
    importMs: { fastify: 100, restwell: 150 },
    rssMB: { fastify: 60, restwell: 80 },
  }
  t.same(evaluate(within), { packages: true, importRatio: true, rss: true })
  const over = {
    packages: 76,
    importMs: { fastify: 100, restwell: 151 },
    rssMB: { fastify: 60, restwell: 80.5 },
  }
  t.same(evaluate(over), { packages: false, importRatio: false, rss: false })
  t.same(TARGETS, { packages: 75, importRatio: 1.5, rssOverMB: 20 })
})
