import { defineConfig } from 'tsdown'
import { packageBuild } from '../../tsdown.base.ts'

// Two entries of one build: the modules both use are one shared chunk, so the public entry and
// `./internal` hold one copy of the kernel's state between them.
export default defineConfig({ ...packageBuild, entry: ['src/index.ts', 'src/internal.ts'] })
