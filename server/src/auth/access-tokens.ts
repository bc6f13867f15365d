import { randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { DomainError } from '../errors.js';
import type { SigningKey } from './signing-keys.js';

export interface AccessTokenClaims {
  userId: string;
  sessionId: string;
  expiresAtMs: number;
}

const TOKEN_TYPE = 'at+jwt';
const CACHE_LIMIT = 10_000;

/**
 * Signs and verifies access tokens (RFC 9068 style: RS256, `typ: at+jwt`, `kid`).
 * Verification pins the algorithm and our one key, and checks `iss`, `aud`, `typ` and `exp`.
 * Verified tokens are remembered until they expire: a token is immutable, so the cache can never
 * accept what verification would refuse, and it spares an RSA verification on every request.
 */
export class AccessTokens {
  private readonly verified = new Map<string, AccessTokenClaims>();

  constructor(
    private readonly key: SigningKey,
    readonly issuer: string,
    readonly audience: string,
    readonly ttlSeconds: number,
  ) {}

  get publicJwk() {
    return this.key.publicJwk;
  }

  /** Signs a token; `notAfterMs` caps its expiry (a temporary user's token never outlives them). */
  async sign(userId: string, sessionId: string, notAfterMs?: number): Promise<{ token: string; expiresIn: number }> {
    const nowSeconds = Math.floor(Date.now() / 1000);
    let exp = nowSeconds + this.ttlSeconds;
    if (notAfterMs !== undefined) exp = Math.min(exp, Math.floor(notAfterMs / 1000));
    const token = await new SignJWT({ sid: sessionId })
      .setProtectedHeader({ alg: 'RS256', typ: TOKEN_TYPE, kid: this.key.kid })
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .setSubject(userId)
      .setJti(randomUUID())
      .setIssuedAt(nowSeconds)
      .setExpirationTime(exp)
      .sign(this.key.privateKey);
    return { token, expiresIn: Math.max(0, exp - nowSeconds) };
  }

  async verify(token: string): Promise<AccessTokenClaims> {
    const cached = this.verified.get(token);
    if (cached !== undefined) {
      if (cached.expiresAtMs > Date.now()) return cached;
      this.verified.delete(token);
    }
    const claims = await this.verifyUncached(token);
    if (this.verified.size >= CACHE_LIMIT) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(token, claims);
    return claims;
  }

  private async verifyUncached(token: string): Promise<AccessTokenClaims> {
    try {
      const { payload } = await jwtVerify(
        token,
        (header) => {
          if (header.kid !== this.key.kid) throw new joseErrors.JWKSNoMatchingKey();
          return this.key.publicKey;
        },
        {
          algorithms: ['RS256'],
          issuer: this.issuer,
          audience: this.audience,
          typ: TOKEN_TYPE,
          requiredClaims: ['sub', 'sid', 'jti', 'iat', 'exp'],
        },
      );
      if (typeof payload.sid !== 'string' || typeof payload.sub !== 'string' || payload.exp === undefined) {
        throw new DomainError('token_invalid', 'the access token is malformed');
      }
      return { userId: payload.sub, sessionId: payload.sid, expiresAtMs: payload.exp * 1000 };
    } catch (error) {
      if (error instanceof DomainError) throw error;
      const expired = error instanceof joseErrors.JWTExpired;
      throw new DomainError('token_invalid', expired ? 'the access token has expired' : 'the access token is invalid');
    }
  }
}
