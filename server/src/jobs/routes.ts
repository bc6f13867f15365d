import {
  idParamsSchema,
  jobKindSchema,
  jobListQuerySchema,
  jobListSchema,
  jobSchema,
  problemSchema,
} from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { notFound } from '../errors.js';
import type { Authenticator } from '../http/authentication.js';
import { authorize, authorizeOwned, tokenProjects } from '../policy/policy.js';
import { type JobQueue, presentJob } from './queue.js';

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema };
const common = { tags: ['jobs'], security: [{ bearerAuth: [] }] };

/** `/jobs`: exists only while SERVICE_JOBS_ENABLED is true. There is no route that creates a job. */
export function jobsRoutes({ jobs }: { jobs: JobQueue }, actorOf: Authenticator): FastifyPluginAsyncZod {
  const load = async (actor: Awaited<ReturnType<Authenticator>>, jobId: string) => {
    const job = await jobs.get(jobId);
    // Someone else's job answers exactly like a missing one, and so does one of a kind outside
    // the product (a benchmark's), even for admins.
    if (!job || !jobKindSchema.safeParse(job.kind).success) {
      authorize(actor, 'session.read_own');
      throw notFound('job');
    }
    authorizeOwned(actor, job.user_id, 'job', job.project_id);
    return job;
  };
  return async (app) => {
    app.get(
      '/jobs',
      {
        schema: {
          ...common,
          summary: 'Your jobs, newest first (admins: everyone’s)',
          querystring: jobListQuerySchema,
          response: { 200: jobListSchema, ...errors },
        },
      },
      async (request) => {
        const actor = await actorOf(request);
        authorize(actor, 'session.read_own');
        return jobs.list({
          userId: actor.role === 'admin' ? null : actor.userId,
          kind: request.query.kind,
          status: request.query.status,
          projectId: request.query.project_id,
          projectIds: tokenProjects(actor),
          limit: request.query.limit,
          skip: request.query.skip,
        });
      },
    );
    app.get(
      '/jobs/:id',
      {
        schema: {
          ...common,
          summary: 'One job; poll it every `poll_after_seconds`',
          params: idParamsSchema,
          response: { 200: jobSchema, ...errors },
        },
      },
      async (request) => presentJob(await load(await actorOf(request), request.params.id)),
    );
    app.post(
      '/jobs/:id/cancel',
      {
        schema: {
          ...common,
          summary: 'Cancel a job that has not ended; a running task is stopped within about a second',
          params: idParamsSchema,
          response: { 200: jobSchema, 409: problemSchema, ...errors },
        },
      },
      async (request) => {
        await load(await actorOf(request), request.params.id);
        return presentJob(await jobs.cancel(request.params.id));
      },
    );
  };
}
