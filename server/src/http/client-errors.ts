import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from '../errors.js';
import { sendProblem } from './error-handler.js';
import { problem } from './problem.js';

/**
 * Requests Node's HTTP parser rejects before Fastify sees them (headers too large, a broken
 * request line, a request that took too long) are answered on the socket directly: as problem
 * details like every other client mistake, not Fastify's own JSON.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const code: ErrorCode =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'headers_too_large'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'request_timeout'
        : 'malformed_request';
  const body = JSON.stringify(problem(code, describe(code)));
  const status = problem(code).status;
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

function describe(code: ErrorCode): string {
  if (code === 'headers_too_large') return 'the request headers are larger than the server accepts (16 KiB)';
  if (code === 'request_timeout') return 'the request did not arrive in time';
  return 'the request is not valid HTTP';
}

/** Failures of Fastify's router before any route runs: a path whose percent-encoding is broken. */
export function frameworkErrors(error: Error & { code?: string }, _request: FastifyRequest, reply: FastifyReply) {
  if (error.code === 'FST_ERR_BAD_URL')
    return sendProblem(reply, 'malformed_request', 'the path is not valid: check its percent-encoding');
  return sendProblem(reply, 'malformed_request', error.message);
}
