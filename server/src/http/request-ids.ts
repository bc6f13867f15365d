import { randomBytes } from 'node:crypto';

/**
 * Request ids shaped like UUIDs (what log tools and clients expect) at the cost of a counter:
 * 74 random bits drawn once per process keep replicas apart, and the counter in the last 48 bits
 * keeps requests of one process apart. Drawing fresh randomness per request showed in profiles of
 * small requests, and an id needs uniqueness, not secrecy.
 */
export function requestIdGenerator(): () => string {
  const random = randomBytes(16).toString('hex');
  const prefix = `${random.slice(0, 8)}-${random.slice(8, 12)}-4${random.slice(13, 16)}-${((Number.parseInt(random[16]!, 16) & 0x3) | 0x8).toString(16)}${random.slice(17, 20)}-`;
  const start = Number.parseInt(random.slice(20, 32), 16);
  let counter = 0;
  return () => {
    counter += 1;
    return prefix + ((start + counter) % 0x1000000000000).toString(16).padStart(12, '0');
  };
}
