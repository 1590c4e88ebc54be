/** Shared build settings: every package ships ESM and CJS with declarations. */
import type { UserConfig } from 'tsdown'

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
}
