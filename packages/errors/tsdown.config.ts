import { readFileSync } from 'node:fs'
import { defineConfig } from 'tsdown'
import { packageBuild } from '../../tsdown.base.ts'

const TYPEBOX_LICENSE = readFileSync(
  new URL('./node_modules/@sinclair/typebox/license', import.meta.url),
  'utf8',
)

// This package holds the one bundled copy of TypeBox every package imports (`./typebox`), with
// TypeBox's license on it.
export default defineConfig({
  ...packageBuild,
  entry: ['src/index.ts', 'src/typebox.ts'],
  outputOptions: (options) => ({
    ...options,
    banner: (chunk) =>
      chunk.moduleIds.some((id) => id.includes('/@sinclair/typebox/'))
        ? `/*!\n${TYPEBOX_LICENSE.trim()
            .split('\n')
            .map((line) => ` * ${line}`.trimEnd())
            .join('\n')}\n */`
        : '',
  }),
})
