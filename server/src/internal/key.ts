import type { FastifyRequest } from 'fastify';
import { secretsMatch } from '../auth/secrets.js';
import { DomainError } from '../errors.js';

/**
 * Guards the maintenance surface (`/metrics`, `/internal/*`) with the internal key. The key
 * never stands for a user, and user tokens or the provisioning key never open these routes.
 */
export function requireInternalKey(internalKey: string) {
  return async (request: FastifyRequest) => {
    const presented = request.headers['x-internal-key'];
    if (typeof presented !== 'string' || !secretsMatch(presented, internalKey)) {
      throw new DomainError('invalid_key', 'the internal key is missing or wrong');
    }
  };
}
