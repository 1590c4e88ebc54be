/** Runs a checked batch: dependencies first, at most `concurrency` operations at once, 424 and 208 without running. */
import { VALIDATED_METHODS } from '@restwell/core/internal'
import type { Operation } from './parse.js'

/** One operation's answer in the 207 body. */
export interface Outcome {
  status: number
  headers: Record<string, string | string[]>
  body?: unknown
  /** 208: the id of the earlier, identical operation. */
  sameAs?: string
  /** Atomic mode: it succeeded, then the transaction was rolled back. */
  rolledBack?: true
}

/** An operation's outcome, whether it counts as failed for its dependents, and whether it ran. */
export interface Settled {
  outcome: Outcome
  failed: boolean
  ran: boolean
}

export interface ScheduleOptions {
  /** Most operations running at once. */
  concurrency: number
  /** Atomic mode: after the first failure, nothing more runs. */
  stopOnFailure: boolean
  /** For each operation, the index of the earlier identical one it repeats (see {@link repeats}). */
  sameAs: readonly (number | undefined)[]
  /** Runs one operation; a rejection rejects the whole batch. */
  execute(operation: Operation): Promise<Outcome>
  /** The 424 of an operation not run: `failed` names the dependencies that failed (none: atomic stop). */
  failedDependency(operation: Operation, failed: string[]): Outcome
}

/**
 * For each operation, the index of the first earlier read (GET, HEAD, QUERY) with the same
 * method, url, headers, body and dependencies, whose answer it repeats (208); undefined for the
 * others. Other operations always run: two identical POSTs may mean two resources.
 */
export function repeats(operations: readonly Operation[]): (number | undefined)[] {
  const first = new Map<string, number>()
  return operations.map((operation, index) => {
    if (!VALIDATED_METHODS.has(operation.method)) return undefined
    const key = JSON.stringify([
      operation.method,
      operation.url,
      Object.entries(operation.headers).sort(([a], [b]) => (a < b ? -1 : 1)),
      // A QUERY's content is part of what it asks (RFC 10008 §2).
      operation.body ?? null,
      [...operation.dependsOn].sort((a, b) => a - b),
    ])
    const earlier = first.get(key)
    if (earlier === undefined) first.set(key, index)
    return earlier
  })
}

/** Runs every operation once its dependencies settled; resolves with the outcomes in request order. */
export function schedule(
  operations: readonly Operation[],
  options: ScheduleOptions,
): Promise<Settled[]> {
  const count = operations.length
  const results: Settled[] = new Array(count)
  // A repeat waits for the operation it repeats, as for a dependency.
  const waitsFor = operations.map((operation, index) => {
    const original = options.sameAs[index]
    return original === undefined ? operation.dependsOn : [...operation.dependsOn, original]
  })
  const waiting = waitsFor.map((deps) => deps.length)
  const dependents: number[][] = operations.map(() => [])
  for (const [index, deps] of waitsFor.entries())
    for (const dep of deps) dependents[dep]?.push(index)
  const ready = [...waiting.keys()].filter((index) => waiting[index] === 0)
  let active = 0
  let settled = 0
  let stopped = false

  /** What an operation whose dependencies settled gets without running, or undefined: it runs. */
  function withoutRunning(index: number): Settled | undefined {
    const operation = operations[index] as Operation
    const failed = operation.dependsOn
      .filter((dep) => (results[dep] as Settled).failed)
      .map((dep) => (operations[dep] as Operation).id)
    if (failed.length > 0 || stopped) {
      return { outcome: options.failedDependency(operation, failed), failed: true, ran: false }
    }
    const original = options.sameAs[index]
    if (original === undefined) return undefined
    const outcome: Outcome = {
      status: 208,
      headers: {},
      sameAs: (operations[original] as Operation).id,
    }
    return { outcome, failed: (results[original] as Settled).failed, ran: false }
  }

  /** Ready operations start in request order: an atomic batch runs as written where it can. */
  function makeReady(index: number): void {
    const at = ready.findIndex((other) => other > index)
    ready.splice(at === -1 ? ready.length : at, 0, index)
  }

  return new Promise((resolve, reject) => {
    function settle(first: number, outcome: Settled): void {
      const queue: [number, Settled][] = [[first, outcome]]
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        const [index, result] = next
        results[index] = result
        settled++
        for (const dependent of dependents[index] as number[]) {
          waiting[dependent] = (waiting[dependent] as number) - 1
          if (waiting[dependent] !== 0) continue
          const answer = withoutRunning(dependent)
          if (answer === undefined) makeReady(dependent)
          else queue.push([dependent, answer])
        }
      }
    }

    function pump(): void {
      while (active < options.concurrency && ready.length > 0) {
        const index = ready.shift() as number
        const operation = operations[index] as Operation
        if (stopped) {
          const outcome = options.failedDependency(operation, [])
          settle(index, { outcome, failed: true, ran: false })
          continue
        }
        active++
        // A rejection (not an error answer: the app could not be injected) fails the batch.
        options.execute(operation).then((outcome) => {
          active--
          const failed = outcome.status >= 400
          if (failed && options.stopOnFailure) stopped = true
          settle(index, { outcome, failed, ran: true })
          pump()
        }, reject)
      }
      if (settled === count) resolve(results)
    }
    pump()
  })
}
