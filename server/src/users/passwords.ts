import { hash, verify } from '@node-rs/argon2';

// `Algorithm.Argon2id` is an ambient const enum, which isolated modules cannot read; its value is 2.
const ARGON2ID = 2;

// OWASP's recommended argon2id parameters (19 MiB, 2 iterations, 1 lane).
const options = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, options);
}

let decoyHash: Promise<string> | undefined;

/**
 * argon2 verifications done by this process, by what they were checked against. Exposed on
 * /metrics: a login storm shows there, and the decoy count proves unknown emails cost the same work.
 */
const verifications = { stored: 0, decoy: 0 };
export function passwordVerifications(): Readonly<typeof verifications> {
  return { ...verifications };
}

/**
 * Checks a password against a stored hash. Without a hash (unknown email, account without a
 * password) it still spends the same work on a decoy, so timing does not reveal which emails exist.
 */
export async function verifyPassword(storedHash: string | null, password: string): Promise<boolean> {
  if (storedHash === null) {
    decoyHash ??= hashPassword('decoy password that matches nothing');
    verifications.decoy++;
    await verify(await decoyHash, password).catch(() => false);
    return false;
  }
  verifications.stored++;
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}
