import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import type { Database } from '../db/database.js';
import { isoNow } from '../db/time.js';

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: JWK & { kty: string; kid: string };
}

const SLOT = 'current';

async function fromPem(pem: string): Promise<SigningKey> {
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'rsa') throw new Error('the JWT signing key must be an RSA private key');
  const publicKey = createPublicKey(privateKey);
  const jwk = await exportJWK(publicKey);
  if (jwk.kty === undefined) throw new Error('could not export the public key as a JWK');
  const kid = await calculateJwkThumbprint(jwk);
  return { kid, privateKey, publicKey, publicJwk: { ...jwk, kty: jwk.kty, kid, alg: 'RS256', use: 'sig' } };
}

/**
 * The key that signs access tokens: the configured PEM, or one generated on first start and kept
 * in the database so every replica signs and verifies with the same key. Creation is a race that
 * exactly one replica wins (fixed primary key); everyone then reads the winner.
 */
export async function loadSigningKey(database: Database, configuredPem: string | null): Promise<SigningKey> {
  if (configuredPem !== null) return fromPem(configuredPem);

  const existing = await database.db
    .selectFrom('signing_keys')
    .select('private_key_pem')
    .where('slot', '=', SLOT)
    .executeTakeFirst();
  if (existing) return fromPem(existing.private_key_pem);

  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const candidate = await fromPem(pem);
  await database.db
    .insertInto('signing_keys')
    .values({ slot: SLOT, kid: candidate.kid, private_key_pem: pem, created_at: isoNow() })
    .onConflict((oc) => oc.column('slot').doNothing())
    .execute();
  const winner = await database.db
    .selectFrom('signing_keys')
    .select('private_key_pem')
    .where('slot', '=', SLOT)
    .executeTakeFirstOrThrow();
  return fromPem(winner.private_key_pem);
}
