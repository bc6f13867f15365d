import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../policy/actor.js';
import type { AdmittedWork, RequestWork } from '../rate-limit/request-work.js';

/**
 * Admits a data or export request (429 with `Retry-After` beyond the caller's rate or running
 * requests) and ties its work to the connection: when the client goes away before the answer is
 * complete, its DuckDB statements are interrupted; when the answer is sent or abandoned, the
 * caller's slot is free. Callers are users by id, anonymous visitors by address.
 */
export async function admitRequest(
  work: RequestWork,
  request: FastifyRequest,
  reply: FastifyReply,
  actor: Actor,
): Promise<AdmittedWork> {
  const caller = actor.kind === 'user' ? `user:${actor.userId}` : `address:${request.ip}`;
  const admitted = await work.admit(caller);
  const closed = () => {
    if (!reply.raw.writableFinished) admitted.clientGone();
    admitted.finish();
  };
  reply.raw.once('close', closed);
  // The client may have left while the request waited for admission.
  if (reply.raw.destroyed || request.raw.socket.destroyed) closed();
  return admitted;
}

/** `source` iterated within the work's bounds (a stream pulls it from outside the handler's context). */
export async function* iterateWithin<T>(admitted: AdmittedWork, source: AsyncIterable<T>): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  try {
    while (true) {
      const next = await admitted.run(() => iterator.next());
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await admitted.run(async () => iterator.return?.());
  }
}
