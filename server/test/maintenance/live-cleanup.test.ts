import { afterAll, beforeAll, expect, it } from 'vitest';
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
import { isoAfterSeconds } from '../../src/db/time.js';
import { liveEventRows } from '../../src/tables/live-events.js';
import { liveStreamLeaseRows } from '../../src/tables/live-stream-leases.js';

const INTERNAL_KEY = 'internal-key-0123456789-abcdefghijklmnopq';

/**
 * The cleanup that every replica runs every few minutes (and `POST /internal/cleanup` at once)
 * deletes expired personal access tokens, live events past the hour of resume and lapsed stream
 * leases, and keeps what is still in use (docs/auth.md, docs/live-data.md).
 */
describeEachDialect('cleanup of tokens and live events', (dialect) => {
  let server: TestServer;
  let ada: Session;
  beforeAll(async () => {
    server = await startTestServer(dialect, { SERVICE_AUTH_INTERNAL_API_KEY_ENV: INTERNAL_KEY });
    const admin = await login(server, ADMIN.email, ADMIN.password);
    ada = await createUser(server, admin.access_token, 'ada@example.org');
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const token = async (name: string) => {
    const made = await call<{ token_id: string; token: string }>(server, 'POST', '/auth/tokens', {
      token: ada.access_token,
      json: { name, expires_in_days: 1, scope: 'read' },
    });
    expect(made.status, made.text).toBe(201);
    return made.body;
  };

  it('deletes expired access tokens, old live events and lapsed leases, keeping the rest', async () => {
    const db = server.context.database.db;
    const expired = await token('expired');
    const live = await token('live');
    await db
      .updateTable('access_tokens')
      .set({ expires_at: isoAfterSeconds(-60) })
      .where('id', '=', expired.token_id)
      .execute();
    expect((await call(server, 'GET', '/projects', { token: expired.token })).status).toBe(401);
    const event = { kind: 'version' as const, project_id: null, data_collection_id: null, user_id: null, data: '{}' };
    for (const seconds of [-3 * 3600, -2 * 3600, -60])
      await liveEventRows.insert(db, { ...event, created_at: isoAfterSeconds(seconds) });
    const lease = { caller_key: 'user:someone', replica_id: 'gone' };
    await liveStreamLeaseRows.insert(db, { ...lease, lease_id: 'lapsed', expires_at: isoAfterSeconds(-5) });
    await liveStreamLeaseRows.insert(db, { ...lease, lease_id: 'held', expires_at: isoAfterSeconds(600) });

    const cleanup = await call(server, 'POST', '/internal/cleanup', { headers: { 'x-internal-key': INTERNAL_KEY } });
    expect(cleanup.status, cleanup.text).toBe(200);
    expect(cleanup.body).toMatchObject({
      purged: { access_tokens: 1 },
      live: { live_events: 2, live_stream_leases: 1 },
    });
    const listed = await call<{ items: { token_id: string }[] }>(server, 'GET', '/auth/tokens', {
      token: ada.access_token,
    });
    expect(listed.body.items.map((item) => item.token_id)).toEqual([live.token_id]);
    expect((await call(server, 'GET', '/projects', { token: live.token })).status).toBe(200);
    expect((await liveEventRows.bounds(db)).lowest).toBe((await liveEventRows.bounds(db)).highest);
    expect(await liveStreamLeaseRows.countLive(db, 'user:someone', isoAfterSeconds(0))).toBe(1);
    // Nothing more to do: a second run deletes nothing.
    const again = await call(server, 'POST', '/internal/cleanup', { headers: { 'x-internal-key': INTERNAL_KEY } });
    expect(again.body).toMatchObject({ purged: { access_tokens: 0 }, live: { live_events: 0, live_stream_leases: 0 } });
  });
});
