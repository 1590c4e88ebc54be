/** Shared build settings: every package ships ESM and CJS with declarations. */
import type { Plugin } from 'rolldown'
import type { UserConfig } from 'tsdown'

/** TypeBox's entry points the packages import at run time. */
const TYPEBOX = /^@sinclair\/typebox(\/|$)/
const TYPEBOX_BUNDLED = new Set(['@sinclair/typebox', '@sinclair/typebox/errors'])
const DECLARATION = /\.d\.[cm]?ts$/
/** The module of `@restwell/errors` that bundles TypeBox: its own imports of it are inlined. */
const TYPEBOX_HOST = /[\\/]packages[\\/]errors[\\/]src[\\/]typebox\.ts$/

/** Whether `id`, imported by `importer`, is TypeBox loaded at run time (not a declaration's import). */
export function isTypeboxAtRuntime(id: string, importer: string | undefined): boolean {
  return TYPEBOX.test(id) && importer !== undefined && !DECLARATION.test(importer)
}

/**
 * TypeBox ships some 250 ES modules; loading them was most of the cost of importing restwell.
 * `@restwell/errors` bundles the parts the packages use into one module (`./typebox`), and every
 * package's run-time imports of TypeBox go there (`@restwell/errors`'s own too, by name).
 */
const sharedTypebox: Plugin = {
  name: 'restwell:shared-typebox',
  resolveId(id, importer) {
    if (!isTypeboxAtRuntime(id, importer) || TYPEBOX_HOST.test(importer as string)) return null
    if (!TYPEBOX_BUNDLED.has(id)) {
      this.error(
        `${id}: not in @restwell/errors/typebox; import from ${[...TYPEBOX_BUNDLED].join(' or ')}`,
      )
    }
    return { id: '@restwell/errors/typebox', external: true }
  },
}

export const packageBuild: UserConfig = {
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  target: 'node20',
  platform: 'node',
  fixedExtension: true,
  // left to the plugin, which makes them external under their new name
  noExternal: isTypeboxAtRuntime,
  plugins: [sharedTypebox],
}
