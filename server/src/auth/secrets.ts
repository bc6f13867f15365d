import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh opaque secret (256 bits), URL-safe. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** How secrets are stored: only their SHA-256, so a leaked table reveals no usable token. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * Compares a presented secret with the expected one in constant time. Both are hashed first so
 * the comparison takes the same time whatever their lengths.
 */
export function secretsMatch(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
