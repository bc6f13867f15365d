import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import { DomainError } from '../errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `name` and `name:port` of a Host value, lower-cased; null when it is not one. */
function parseHost(value: string): { name: string; hostPort: string } | null {
  try {
    const url = new URL(`http://${value}`);
    if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return null;
    return { name: url.hostname, hostPort: url.host };
  } catch {
    return null;
  }
}

function isLoopback(name: string): boolean {
  return LOOPBACK_NAMES.has(name) || name.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(name);
}

/**
 * Refuses requests a page on another site could make a browser send:
 *
 * - a state-changing request whose `Origin` is not this server's (or that the browser marks
 *   `Sec-Fetch-Site: cross-site`): a form or script elsewhere posting to the API. Clients that are
 *   not browsers send neither header and are not affected;
 * - when hosts are checked (always in single-user mode, where every request acts as the admin), a
 *   `Host` other than the public URL's, a loopback name, or one of `SERVICE_ALLOWED_HOSTS`: a name
 *   an attacker re-pointed at this server (DNS rebinding) would otherwise reach it as same-origin.
 *   `/health` (and `/health/live`, `/health/ready`) stays open to probes that address the server by IP.
 */
export function installRequestOriginChecks(
  app: FastifyInstance,
  config: Pick<Config, 'publicUrl' | 'allowedHosts'>,
): void {
  const publicUrl = new URL(config.publicUrl);
  const allowedHosts = config.allowedHosts === null ? null : new Set([publicUrl.host, ...config.allowedHosts]);

  const hostAllowed = (request: FastifyRequest): boolean => {
    if (allowedHosts === null) return true;
    const host = parseHost(request.host);
    if (host === null) return false;
    return allowedHosts.has(host.hostPort) || allowedHosts.has(host.name) || isLoopback(host.name);
  };

  const originAllowed = (request: FastifyRequest): boolean => {
    if (request.headers['sec-fetch-site'] === 'cross-site') return false;
    const origin = request.headers.origin;
    if (origin === undefined) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // `null` (sandboxed frames, file: pages) or garbage.
    }
    if (url.origin === publicUrl.origin) return true;
    // Same origin as far as the browser is concerned: it sent the page's host as Host too.
    return url.host === parseHost(request.host)?.hostPort;
  };

  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0];
    if (path !== '/health' && !path?.startsWith('/health/') && !hostAllowed(request)) {
      throw new DomainError(
        'host_not_allowed',
        `this server does not answer to the host ${request.host}; use ${publicUrl.host} or add the name to SERVICE_ALLOWED_HOSTS`,
      );
    }
    if (!SAFE_METHODS.has(request.method) && !originAllowed(request)) {
      throw new DomainError(
        'cross_origin_request',
        'a page on another site may not change anything here; send the request from this server’s own pages',
      );
    }
  });
}
