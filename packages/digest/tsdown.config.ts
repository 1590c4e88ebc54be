import { defineConfig } from 'tsdown'
import { packageBuild } from '../../tsdown.base.ts'

export default defineConfig(packageBuild)
