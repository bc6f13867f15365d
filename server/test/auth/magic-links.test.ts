import { afterAll, beforeAll, expect, it } from 'vitest';
import { withClockAhead } from '../../../test/support/clock.js';
import {
  ADMIN,
  call,
  createUser,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

const ticketOf = (url: string) => new URLSearchParams(new URL(url).hash.slice(1)).get('ticket') ?? '';

describeEachDialect('magic links', (dialect) => {
  let server: TestServer;
  let user: Session;
  beforeAll(async () => {
    server = await startTestServer(dialect, { SERVICE_AUTH_MAGIC_LINK_EXPIRY_MINUTES: '10' });
    const admin = await login(server, ADMIN.email, ADMIN.password);
    user = await createUser(server, admin.access_token, 'linked@example.org');
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const create = (next?: string) =>
    call<{ url: string; expires_at: string; code?: string }>(server, 'POST', '/auth/magic_link', {
      token: user.access_token,
      json: next === undefined ? {} : { next },
    });

  it('links to the web app with the ticket in the fragment, stored only as a hash', async () => {
    const link = await create('/dashboards/42?tab=data');
    expect(link.status).toBe(201);
    const url = new URL(link.body.url);
    expect(`${url.origin}${url.pathname}`).toBe('http://127.0.0.1:8058/auth/magic');
    expect(url.search).toBe('');
    const fragment = new URLSearchParams(url.hash.slice(1));
    expect(fragment.get('next')).toBe('/dashboards/42?tab=data');
    const ticket = fragment.get('ticket') ?? '';
    expect(ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await server.context.database.db.selectFrom('login_tickets').select('ticket_hash').execute();
    expect(JSON.stringify(stored)).not.toContain(ticket);

    const redeemed = await call<Session>(server, 'POST', '/auth/magic_link/redeem', { json: { ticket } });
    expect(redeemed.status).toBe(200);
    expect(redeemed.body.user.email).toBe('linked@example.org');
    expect((await call(server, 'GET', '/auth/me', { token: redeemed.body.access_token })).status).toBe(200);

    const again = await call(server, 'POST', '/auth/magic_link/redeem', { json: { ticket } });
    expect(again.status).toBe(401);
    expect(again.body.code).toBe('token_invalid');
  });

  it('gives exactly one session to 20 concurrent redemptions of one ticket', async () => {
    const ticket = ticketOf((await create()).body.url);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call(server, 'POST', '/auth/magic_link/redeem', { json: { ticket } })),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 401)).toHaveLength(19);
  });

  it('expires after its lifetime, and not before', async () => {
    const ticket = ticketOf((await create()).body.url);
    const late = await withClockAhead(10 * 60_000 + 1_000, () =>
      call(server, 'POST', '/auth/magic_link/redeem', { json: { ticket } }),
    );
    expect(late.status).toBe(401);
    const inTime = ticketOf((await create()).body.url);
    const early = await withClockAhead(9 * 60_000, () =>
      call(server, 'POST', '/auth/magic_link/redeem', { json: { ticket: inTime } }),
    );
    expect(early.status).toBe(200);
  });

  it.each([
    '//evil.example/path',
    'https://evil.example/',
    '/\\evil.example',
    // Dot segments that resolve to a protocol-relative `//evil.example`.
    '/..//evil.example',
    '/.%2e//evil.example/x',
    '/a/../..//evil.example',
    'javascript:alert(1)',
    'dashboards/1',
    '/ok\nSet-Cookie: x=1',
  ])('refuses next=%j (open redirect)', async (next) => {
    const answer = await create(next);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('validation_failed');
  });

  it('refuses empty, malformed and made-up tickets', async () => {
    for (const ticket of ['', 'short', 'x'.repeat(500)]) {
      const answer = await call(server, 'POST', '/auth/magic_link/redeem', { json: { ticket } });
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('validation_failed');
    }
    const madeUp = await call(server, 'POST', '/auth/magic_link/redeem', { json: { ticket: 'A'.repeat(43) } });
    expect(madeUp.status).toBe(401);
    expect((await call(server, 'POST', '/auth/magic_link/redeem', { json: {} })).status).toBe(400);
  });

  it('needs a signed-in user to create one', async () => {
    expect((await call(server, 'POST', '/auth/magic_link', { json: {} })).status).toBe(401);
  });

  it('stops working when its user is disabled', async () => {
    const admin = await login(server, ADMIN.email, ADMIN.password);
    const person = await createUser(server, admin.access_token, 'soon-disabled@example.org');
    const link = await call<{ url: string }>(server, 'POST', '/auth/magic_link', { token: person.access_token });
    await call(server, 'PATCH', `/users/${person.user.user_id}`, {
      token: admin.access_token,
      json: { disabled: true },
    });
    const answer = await call(server, 'POST', '/auth/magic_link/redeem', { json: { ticket: ticketOf(link.body.url) } });
    expect(answer.status).toBe(401);
  });
});
