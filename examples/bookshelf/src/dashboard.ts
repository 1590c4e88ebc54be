/**
 * The queue dashboard (bull-board) at `/admin/queues`, with Redis only: the BullMQ queue of the
 * export jobs, its jobs by state, retries and removals. Behind the write token (`app.ts` sets
 * its routes' `config`); its errors go out in restwell's error form.
 */
import { createBullBoard } from '@bull-board/api'
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter'
import { FastifyAdapter } from '@bull-board/fastify'
import type { Queue } from 'bullmq'
import type { FastifyInstance } from 'fastify'

/** Where the dashboard is mounted. */
export const DASHBOARD_PATH = '/admin/queues'

export async function dashboardRoutes(app: FastifyInstance, opts: { queue: Queue }): Promise<void> {
  const serverAdapter = new FastifyAdapter()
  serverAdapter.setBasePath(DASHBOARD_PATH)
  createBullBoard({ queues: [new BullMQAdapter(opts.queue)], serverAdapter })
  // bull-board answers errors in its own form, without their headers (a 401 would lose its
  // WWW-Authenticate): thrown on, they reach restwell's error handler instead.
  serverAdapter.setErrorHandler((error) => {
    throw error
  })
  await app.register(serverAdapter.registerPlugin(), { prefix: DASHBOARD_PATH })
}
