import { expectTypeOf } from 'expect-type'
import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from 'fastify'
import type { DefaultJobOptions, Processor, Queue, Worker, WorkerOptions } from 'bullmq'
import type { Redis } from 'ioredis'
import { test } from 'tap'
import restwellJobsDefault, {
  type BullmqJobOptions,
  type BullmqQueue,
  type BullmqWorkerOptions,
  type Job,
  type JobContext,
  type JobError,
  type JobHandler,
  type JobProcessor,
  type JobsApi,
  type JobsOptions,
  type JobStatus,
  jobProcessor,
  type RedisClient,
  type RedisStoreConfig,
  restwellJobs,
} from '../src/index.js'

test('types of @restwell/jobs', async (t) => {
  expectTypeOf(restwellJobs).toEqualTypeOf<FastifyPluginAsync<JobsOptions>>()
  expectTypeOf(restwellJobsDefault).toEqualTypeOf(restwellJobs)
  expectTypeOf<FastifyInstance['jobs']>().toEqualTypeOf<JobsApi>()
  expectTypeOf<FastifyReply['accepted']>().toEqualTypeOf<(job: Job) => FastifyReply>()
  expectTypeOf<JobStatus>().toEqualTypeOf<'queued' | 'running' | 'succeeded' | 'failed'>()
  expectTypeOf<Job>().toEqualTypeOf<{
    jobId: string
    status: JobStatus
    estimatedTime: string
    createdAt: string
    updatedAt: string
    progress?: number
    error?: JobError
  }>()
  expectTypeOf<JobError>().toEqualTypeOf<{
    statusCode: number
    code: string
    message: string
    details: { field: string; message: string; code?: string }[]
  }>()
  expectTypeOf<JobsApi['enqueue']>().returns.toEqualTypeOf<Promise<Job>>()
  expectTypeOf<JobsApi['get']>().returns.toEqualTypeOf<Promise<Job | undefined>>()
  expectTypeOf<JobHandler<{ n: number }, string>>().parameters.toEqualTypeOf<
    [{ n: number }, JobContext]
  >()
  expectTypeOf<JobContext['signal']>().toEqualTypeOf<AbortSignal>()
  expectTypeOf<JobsOptions['store']>().toEqualTypeOf<'memory' | RedisStoreConfig | undefined>()
  // The declarations import neither bullmq nor ioredis (optional peers); what they take is
  // described by structure, and bullmq's and ioredis' own values are of those types.
  expectTypeOf<RedisStoreConfig['redis']>().toEqualTypeOf<string | RedisClient>()
  expectTypeOf<Redis>().toExtend<RedisClient>()
  expectTypeOf<RedisStoreConfig['jobOptions']>().toEqualTypeOf<BullmqJobOptions | undefined>()
  expectTypeOf<DefaultJobOptions>().toExtend<BullmqJobOptions>()
  expectTypeOf<RedisStoreConfig['workerOptions']>().toEqualTypeOf<BullmqWorkerOptions | undefined>()
  type Passed = Omit<
    WorkerOptions,
    | 'connection'
    | 'prefix'
    | 'autorun'
    | 'useWorkerThreads'
    | 'workerForkOptions'
    | 'workerThreadsOptions'
  >
  expectTypeOf<Passed>().toExtend<BullmqWorkerOptions>()
  expectTypeOf<JobsApi['queue']>().toEqualTypeOf<BullmqQueue | undefined>()
  expectTypeOf<Queue>().toExtend<BullmqQueue>()
  // @ts-expect-error a sandbox option has no use with restwell's processor function
  const sandboxed: BullmqWorkerOptions = { useWorkerThreads: true }
  t.ok(sandboxed)
  expectTypeOf(jobProcessor).returns.toEqualTypeOf<JobProcessor>()
  // A bullmq Worker takes the processor, and the processor attaches to it.
  const processor = jobProcessor({ export: async () => 1 })
  expectTypeOf(processor).toExtend<Processor>()
  expectTypeOf<Worker>().toExtend<Parameters<JobProcessor['attach']>[0]>()
  expectTypeOf<JobsOptions['estimatedTime']>().toEqualTypeOf<number | string | undefined>()
  expectTypeOf<JobsOptions['concurrency']>().toEqualTypeOf<number | undefined>()
  const options: JobsOptions = { basePath: '/operations', store: { redis: 'redis://127.0.0.1' } }
  // @ts-expect-error unknown options are refused
  const wrong: JobsOptions = { prefixx: '/jobs' }
  t.ok(options && wrong)
  t.equal(restwellJobsDefault, restwellJobs)
})
