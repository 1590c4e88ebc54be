/** Sets up overload protection: `@fastify/under-pressure` in a scope of its own, asked per request. */
import { RegistrationError, type RequestStep, type SetupContext } from '@restwell/core'
import { refuseBeside } from '@restwell/core/internal'
import type { FastifyInstance } from 'fastify'
import type { ResolvedOverloadOptions } from './options.js'
import {
  overloadStep,
  type PressureClock,
  type PressureProbe,
  underPressureOptions,
} from './pressure.js'

/** The plugin's name, as its messages begin. */
export const PLUGIN = '@restwell/overload'

/** What the steps read. */
export interface OverloadSettings {
  /** The step of every request: 503 + `Retry-After` under pressure. */
  readonly request: RequestStep
}

/** The refusal of `@fastify/under-pressure` registered beside this plugin. */
function twoProbes(when: 'before' | 'after'): RegistrationError {
  return new RegistrationError(
    `${PLUGIN}: @fastify/under-pressure is registered ${when} it: both would answer 503 under load. Remove @fastify/under-pressure: ${PLUGIN} configures it.`,
  )
}

/**
 * Registers `@fastify/under-pressure` in a scope of its own: its decorators (`memoryUsage`,
 * `isUnderPressure`) and its hook stay there, so an app's own registration of it meets the
 * refusal (alone) or the umbrella's overlap check, not a decorator clash.
 */
export async function setupOverload(
  fastify: FastifyInstance,
  options: ResolvedOverloadOptions,
  context: SetupContext,
): Promise<OverloadSettings> {
  if (!context.pipeline) refuseBeside(fastify, '@fastify/under-pressure', twoProbes)
  const clock: PressureClock = { readyAt: Date.now() }
  fastify.addHook('onReady', async function restwellOverloadReady() {
    clock.readyAt = Date.now()
  })
  const sampled: { probe?: PressureProbe } = {}
  const probe = (): PressureProbe => sampled.probe as PressureProbe
  const pressure = underPressureOptions(options, clock, probe)
  await fastify.register(async function restwellUnderPressure(scope) {
    // Loaded when overload protection is on: importing the package does not load it.
    await scope.register(import('@fastify/under-pressure'), pressure)
    sampled.probe = scope as unknown as PressureProbe
  })
  return { request: overloadStep(options, pressure, probe) }
}
