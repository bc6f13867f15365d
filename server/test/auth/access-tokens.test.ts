import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describeEachDialect('access tokens', (dialect) => {
  let server: TestServer;
  let session: Session;
  let privateKey: KeyObject;
  let kid: string;
  let claims: Record<string, unknown>;
  const issuer = 'http://127.0.0.1:8058';
  const audience = 'http://127.0.0.1:8058/service/api/v1';

  beforeAll(async () => {
    server = await startTestServer(dialect);
    session = await login(server, ADMIN.email, ADMIN.password);
    const row = await server.context.database.db.selectFrom('signing_keys').selectAll().executeTakeFirstOrThrow();
    privateKey = createPrivateKey(row.private_key_pem);
    kid = row.kid;
    claims = decodeJwt(session.access_token);
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  /** Signs claims with our real key, so only the property under test is wrong. */
  function forge(
    overrides: Record<string, unknown> = {},
    header: Record<string, unknown> = {},
    key: KeyObject = privateKey,
  ): Promise<string> {
    return new SignJWT({ ...claims, ...overrides })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid, ...header })
      .sign(key);
  }

  async function expectRefused(token: string) {
    const answer = await call(server, 'GET', '/auth/me', { token });
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe('token_invalid');
  }

  it('issues RS256 at+jwt tokens with iss, aud, sub, jti, sid and a kid that the JWKS publishes', async () => {
    const header = decodeProtectedHeader(session.access_token);
    expect(header).toEqual({ alg: 'RS256', typ: 'at+jwt', kid });
    expect(claims).toMatchObject({ iss: issuer, aud: audience, sub: session.user.user_id });
    expect(claims.jti).toEqual(expect.any(String));
    expect(claims.sid).toEqual(expect.any(String));
    expect((claims.exp as number) - (claims.iat as number)).toBe(15 * 60);

    const jwks = await call<{ keys: object[] }>(server, 'GET', '/auth/jwks.json');
    expect(jwks.status).toBe(200);
    const verified = await jwtVerify(session.access_token, createLocalJWKSet(jwks.body as never), { issuer, audience });
    expect(verified.payload.sub).toBe(session.user.user_id);
    expect(JSON.stringify(jwks.body)).not.toMatch(/"d":/);
  });

  it('accepts a correctly forged control token (so the refusals below are about one property each)', async () => {
    const answer = await call(server, 'GET', '/auth/me', { token: await forge() });
    expect(answer.status).toBe(200);
  });

  it('refuses alg none', async () => {
    const payload = base64url(claims);
    await expectRefused(`${base64url({ alg: 'none', typ: 'at+jwt', kid })}.${payload}.`);
  });

  it('refuses HS256 signed with our public key as the secret', async () => {
    const publicPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid })
      .sign(new TextEncoder().encode(publicPem));
    await expectRefused(token);
  });

  it('refuses an unknown kid and a key that is not ours', async () => {
    await expectRefused(await forge({}, { kid: 'someone-elses-key' }));
    const { privateKey: stranger } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await expectRefused(await forge({}, {}, stranger));
  });

  it('refuses a wrong issuer, audience or type', async () => {
    await expectRefused(await forge({ iss: 'https://evil.example.org' }));
    await expectRefused(await forge({ aud: 'https://other-service.example.org' }));
    await expectRefused(await forge({}, { typ: 'JWT' }));
  });

  it('refuses an expired token', async () => {
    const past = Math.floor(Date.now() / 1000) - 3600;
    await expectRefused(await forge({ iat: past - 900, exp: past }));
  });

  it('refuses a tampered payload', async () => {
    const [header, , signature] = session.access_token.split('.');
    const payload = base64url({ ...claims, sub: 'another-user' });
    await expectRefused(`${header}.${payload}.${signature}`);
  });

  it('refuses a token whose session does not exist', async () => {
    await expectRefused(await forge({ sid: '00000000-0000-7000-8000-000000000000' }));
  });

  it('refuses garbage and non-bearer authorization headers', async () => {
    await expectRefused('not-a-jwt');
    const basic = await call(server, 'GET', '/auth/me', { headers: { authorization: 'Basic YTpi' } });
    expect(basic.status).toBe(401);
    expect(basic.body.code).toBe('token_invalid');
  });

  it('asks anonymous callers to sign in', async () => {
    const answer = await call(server, 'GET', '/auth/me');
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe('unauthenticated');
  });
});
