import type { FieldError } from '@service/common';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isDatabaseUnavailable } from '../db/errors.js';
import { DomainError, type ErrorCode, formatPath, RetryLaterError } from '../errors.js';
import { S3StorageError } from '../storage/s3-errors.js';
import { problem, statusOf } from './problem.js';

function validationErrors(error: FastifyError): FieldError[] {
  const context = error.validationContext;
  return (error.validation ?? []).flatMap((issue) => {
    const path = issue.instancePath
      .split('/')
      .filter(Boolean)
      .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
    const keys = (issue.params as { keys?: unknown }).keys;
    if (issue.keyword === 'unrecognized_keys' && Array.isArray(keys)) {
      return keys.map((key) => ({ path: formatPath(context, [...path, String(key)]), message: 'unknown field' }));
    }
    return [{ path: formatPath(context, path), message: issue.message ?? 'is invalid' }];
  });
}

/** Fastify's own failures that are the client's doing, by Fastify error code. */
const fastifyClientErrors: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'malformed_body',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'malformed_body',
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed_body',
  // @fastify/multipart
  FST_REQ_FILE_TOO_LARGE: 'payload_too_large',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'unsupported_media_type',
  FST_PARTS_LIMIT: 'validation_failed',
  FST_FILES_LIMIT: 'validation_failed',
  FST_FIELDS_LIMIT: 'validation_failed',
};

/** How long a client should wait before retrying a 503: outages the server rides out are short (restarts, failovers). */
const RETRY_AFTER_SECONDS = '1';

export function sendProblem(reply: FastifyReply, code: ErrorCode, detail?: string, errors?: FieldError[]) {
  if (code === 'service_unavailable' && !reply.hasHeader('retry-after'))
    reply.header('retry-after', RETRY_AFTER_SECONDS);
  return reply
    .code(statusOf(code))
    .type('application/problem+json')
    .send(problem(code, detail, errors ? { errors } : undefined));
}

/**
 * Every failure leaves as RFC 9457 problem details with a stable `code`. Client mistakes get a
 * 4xx that says what to fix; anything unexpected is logged and answered with the request id only.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof RetryLaterError) reply.header('retry-after', String(Math.max(1, error.retryAfterSeconds)));
    if (error instanceof DomainError) return sendProblem(reply, error.code, error.message, error.errors);
    if (hasZodFastifySchemaValidationErrors(error)) {
      return sendProblem(
        reply,
        'validation_failed',
        'the request does not match what this route accepts',
        validationErrors(error),
      );
    }
    if (error instanceof S3StorageError) {
      request.log.error({ err: error }, 'object storage failed');
      return sendProblem(reply, 'service_unavailable', 'object storage is unavailable; nothing was changed, try again');
    }
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return sendProblem(reply, 'service_unavailable', 'the database is unavailable; nothing was changed, try again');
    }
    const known = error.code === undefined ? undefined : fastifyClientErrors[error.code];
    if (known) return sendProblem(reply, known, error.message);
    if (error.statusCode === 429)
      return sendProblem(reply, 'rate_limited', 'too many attempts; retry after the delay given');
    if (error instanceof SyntaxError && error.statusCode === 400)
      return sendProblem(reply, 'malformed_body', 'the body is not valid JSON');
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      request.log.info({ err: error }, 'client error without a specific code');
      return sendProblem(reply, error.statusCode === 404 ? 'not_found' : 'malformed_body', error.message);
    }
    request.log.error({ err: error }, 'request failed');
    return reply
      .code(500)
      .type('application/problem+json')
      .send(
        problem('internal_error', 'an unexpected error occurred; quote the request id when reporting it', {
          request_id: request.id,
        }),
      );
  });
}

/**
 * Unknown routes answer a 404 problem. With the web app served, a browser asking for a page
 * outside the API gets index.html instead, so the app's deep links survive a reload.
 */
export function installNotFoundHandling(app: FastifyInstance, serveWebApp: boolean): void {
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const wantsPage =
      serveWebApp &&
      request.method === 'GET' &&
      !path.startsWith('/service/') &&
      (request.headers.accept ?? '').includes('text/html');
    if (wantsPage) return reply.type('text/html').sendFile('index.html');
    return sendProblem(reply, 'not_found', `no route ${request.method} ${path}`);
  });
}
