import { eventStreamQuerySchema, problemSchema } from '@service/common';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../config/config.js';
import { RetryLaterError } from '../errors.js';
import type { Authenticator } from '../http/authentication.js';
import type { Actor } from '../policy/actor.js';
import type { LiveEvents } from './hub.js';
import { StreamLeases } from './leases.js';
import { resolveScope, type ScopeSources } from './scope.js';
import { EventStream } from './stream.js';

const errors = { 400: problemSchema, 401: problemSchema, 404: problemSchema, 429: problemSchema };

/** Whose open streams count together: a user's, or an anonymous caller's address. */
function callerKey(actor: Actor, request: FastifyRequest): string {
  return actor.kind === 'user' ? `user:${actor.userId}` : `address:${request.ip}`;
}

/** The client's `Last-Event-ID` (header, else the query's `last_event_id`); null when absent or not a number. */
function lastEventIdOf(request: FastifyRequest, fromQuery: string | undefined): number | null {
  const header = request.headers['last-event-id'];
  const text = (Array.isArray(header) ? header[0] : header)?.trim() ?? fromQuery;
  return text !== undefined && /^\d{1,18}$/.test(text) ? Number(text) : null;
}

/**
 * `GET /events`: the live stream (docs/live-data.md). Open streams are counted per caller across
 * every replica (a lease each, `StreamLeases`) and ended when the server closes, so a shutdown
 * never waits on a client.
 */
export function liveRoutes(
  deps: ScopeSources & { live: LiveEvents; config: Pick<Config, 'events'> },
  actorOf: Authenticator,
): FastifyPluginAsyncZod {
  const { live, config } = deps;
  const leases = new StreamLeases(deps.database, {
    maxPerCaller: config.events.maxStreamsPerUser,
    heartbeatSeconds: config.events.heartbeatSeconds,
  });
  const streams = new Set<EventStream>();
  return async (app) => {
    app.addHook('preClose', (done) => {
      for (const stream of streams) stream.end();
      done();
    });
    app.addHook('onClose', async () => leases.close());
    app.get(
      '/events',
      {
        exposeHeadRoute: false,
        schema: {
          tags: ['live'],
          security: [{ bearerAuth: [] }],
          summary: 'Live events: new table versions and job changes, as server-sent events',
          description:
            '`text/event-stream`. `dashboard_id`: versions of the collections it reads and of those joined to ' +
            'them; `project_id`: its ' +
            "collections' versions and your jobs in it; neither: your jobs. Events `version` " +
            '`{data_collection_id, version}`, `job` `{job_id, kind, status, step, progress, project_id, ' +
            'updated_at}` and `reset` (events were missed: refetch). Resume with `Last-Event-ID`; ' +
            'heartbeat comments; 429 beyond SERVICE_EVENTS_MAX_STREAMS_PER_USER open streams (on all replicas).',
          querystring: eventStreamQuerySchema,
          response: { 200: z.unknown().describe('the event stream'), ...errors },
        },
      },
      async (request, reply) => {
        const actor = await actorOf(request);
        const { dashboard_id, project_id, once, last_event_id } = request.query;
        const target = { dashboard_id, project_id };
        const scope = await resolveScope(actor, target, deps);
        const lease = await leases.acquire(callerKey(actor, request));
        if (lease === null)
          throw new RetryLaterError(
            `at most ${config.events.maxStreamsPerUser} event streams may be open at once; close one`,
            config.events.heartbeatSeconds,
          );
        const stream: EventStream = new EventStream({
          hub: live,
          scope,
          lastEventId: lastEventIdOf(request, last_event_id),
          heartbeatMs: config.events.heartbeatSeconds * 1000,
          once,
          recheck: async () => resolveScope(await actorOf.again(request), target, deps),
          onEnd: () => {
            streams.delete(stream);
            leases.release(lease);
          },
        });
        streams.add(stream);
        reply.raw.once('close', () => stream.end());
        try {
          await stream.start();
        } catch (error) {
          stream.end();
          throw error;
        }
        return reply.type('text/event-stream; charset=utf-8').header('x-accel-buffering', 'no').send(stream.body);
      },
    );
  };
}
