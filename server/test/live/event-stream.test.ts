import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import {
  call,
  createTestDatabase,
  createUser,
  describeEachDialect,
  login,
  startTestServer,
} from '../../../test/support/test-server.js';
import { type Fixture, fixture, HEARTBEAT, hasVersion, newVersion } from './fixture.js';
import { dataOf, type OpenStream, openStream } from './sse-client.js';

/**
 * `GET /events` over real HTTP (docs/live-data.md): versions of what a dashboard reads, job changes,
 * resume with Last-Event-ID, heartbeats, who may listen, the end of a session, the per-user limit.
 */

describeEachDialect('live event stream', (dialect) => {
  let f: Fixture;
  const open: OpenStream[] = [];
  const listen = async (query: string, token?: string, lastEventId?: string | null) => {
    const stream = await openStream(f.server, query, { token, lastEventId });
    open.push(stream);
    return stream;
  };

  beforeAll(async () => {
    f = await fixture(await startTestServer(dialect, HEARTBEAT));
  });
  afterAll(async () => {
    for (const stream of open) stream.close();
    await f.server.stop();
    await f.server.database.drop();
  });

  it("sends a dashboard's readers the new version of a table it reads, with heartbeats", async () => {
    const owner = await listen(`?dashboard_id=${f.dashboardId}`, f.owner.access_token);
    const viewer = await listen(`?dashboard_id=${f.dashboardId}`, f.viewer.access_token);
    const admin = await listen(`?dashboard_id=${f.dashboardId}`, f.admin.access_token);
    expect(owner.status).toBe(200);
    expect(owner.contentType).toMatch(/^text\/event-stream/);
    const version = await newVersion(f.server, f);
    for (const stream of [owner, viewer, admin]) await stream.until(hasVersion(f.collectionId, version));
    await owner.until((stream) => stream.comments.includes('heartbeat'));
    for (const stream of [owner, viewer, admin]) stream.close();
  });

  it('refuses the stream to those who may not read the dashboard, as the dashboard itself does', async () => {
    expect((await listen(`?dashboard_id=${f.dashboardId}`, f.other.access_token)).status).toBe(404);
    expect((await listen(`?dashboard_id=${f.dashboardId}`)).status).toBe(401);
    expect((await listen(`?project_id=${f.projectId}`, f.other.access_token)).status).toBe(404);
    expect((await listen('')).status).toBe(401);
    expect(
      (await listen(`?dashboard_id=${f.dashboardId}&project_id=${f.projectId}`, f.owner.access_token)).status,
    ).toBe(400);
  });

  it("sends job changes to the job's owner and admins only", async () => {
    const owner = await listen('', f.owner.access_token);
    const admin = await listen('', f.admin.access_token);
    const viewer = await listen(`?project_id=${f.projectId}`, f.viewer.access_token);
    const other = await listen('', f.other.access_token);
    const queued = await call<{ job_id: string }>(f.server, 'POST', '/deltatables/upsert', {
      token: f.owner.access_token,
      json: { data_collection_id: f.collectionId, async_mode: true },
    });
    expect(queued.status).toBe(202);
    const ended = (stream: OpenStream) =>
      dataOf<{ job_id: string; status: string }>(stream, 'job').some(
        (job) => job.job_id === queued.body.job_id && job.status === 'success',
      );
    await owner.until(ended);
    await admin.until(ended);
    // The viewer's stream and the other user's carry nothing of it, though both stay open.
    await owner.until((stream) => stream.comments.length > 0);
    await other.until((stream) => stream.comments.includes('heartbeat'));
    await viewer.until((stream) => stream.comments.includes('heartbeat'));
    expect(other.events.filter((event) => event.event === 'job')).toEqual([]);
    expect(viewer.events.filter((event) => event.event === 'job')).toEqual([]);
    for (const stream of [owner, admin, viewer, other]) stream.close();
  });

  it('resumes after a reconnect from Last-Event-ID, and once=true ends after the replay', async () => {
    const first = await listen(`?dashboard_id=${f.dashboardId}`, f.owner.access_token);
    await first.until((stream) => stream.lastEventId !== null);
    const before = first.lastEventId;
    first.close();
    const missed = await newVersion(f.server, f);
    const resumed = await listen(`?dashboard_id=${f.dashboardId}`, f.owner.access_token, before);
    await resumed.until(hasVersion(f.collectionId, missed));
    resumed.close();
    const once = await listen(`?dashboard_id=${f.dashboardId}&once=true`, f.viewer.access_token, before);
    await once.ended;
    expect(hasVersion(f.collectionId, missed)(once)).toBe(true);
    // Nothing newer than what the client has: nothing replayed.
    const current = await listen(`?dashboard_id=${f.dashboardId}&once=true`, f.owner.access_token, resumed.lastEventId);
    await current.ended;
    expect(current.events).toEqual([]);
  });

  it('closes the stream when the session ends: sign-out, a disabled user', async () => {
    const session = await login(f.server, 'viewer@example.org', 'viewer@example.org-password');
    const signedOut = await listen(`?dashboard_id=${f.dashboardId}`, session.access_token);
    expect(signedOut.status).toBe(200);
    expect((await call(f.server, 'POST', '/auth/logout', { token: session.access_token })).status).toBe(204);
    await signedOut.ended;
    const user = await createUser(f.server, f.admin.access_token, `gone-${dialect}@example.org`);
    const disabled = await listen('', user.access_token);
    const patched = await call(f.server, 'PATCH', `/users/${user.user.user_id}`, {
      token: f.admin.access_token,
      json: { disabled: true },
    });
    expect(patched.status, patched.text).toBe(200);
    await disabled.ended;
  });

  it('limits the streams one user holds open, with the error shape', async () => {
    const token = (await login(f.server, 'other@example.org', 'other@example.org-password')).access_token;
    const held = [await listen('', token), await listen('', token), await listen('', f.other.access_token)];
    for (const stream of held) expect(stream.status).toBe(200);
    const refused = await listen('', token);
    expect(refused.status).toBe(429);
    expect(refused.problem).toMatchObject({ code: 'rate_limited', status: 429 });
    // Another user is not counted with them.
    const viewer = await listen('', f.viewer.access_token);
    expect(viewer.status).toBe(200);
    viewer.close();
    held[0]?.close();
    await held[0]?.ended;
    // The server counts the closed stream out once it sees the connection go.
    await expect
      .poll(async () => {
        const again = await listen('', token);
        again.close();
        return again.status;
      })
      .toBe(200);
    for (const stream of held) stream.close();
  });
});

// Two API replicas in this process need a server database.
it.skipIf(inject('postgresAdminUrl') === '')(
  "an ingestion committed through one replica reaches the other's streams",
  async () => {
    const database = await createTestDatabase('postgres');
    const first = await startTestServer(database, HEARTBEAT);
    const second = await startTestServer(database, HEARTBEAT);
    try {
      const f = await fixture(first);
      const stream = await openStream(second, `?dashboard_id=${f.dashboardId}`, { token: f.owner.access_token });
      const jobs = await openStream(second, '', { token: f.owner.access_token });
      expect(stream.status).toBe(200);
      await stream.until((s) => s.lastEventId !== null);
      const version = await newVersion(first, f);
      await stream.until(hasVersion(f.collectionId, version), 2_000);
      // A job run by the first replica's workers: its changes reach the second's streams too.
      const queued = await call<{ job_id: string }>(first, 'POST', '/deltatables/upsert', {
        token: f.owner.access_token,
        json: { data_collection_id: f.collectionId, async_mode: true, overwrite: true },
      });
      await jobs.until((s) =>
        dataOf<{ job_id: string; status: string }>(s, 'job').some(
          (job) => job.job_id === queued.body.job_id && job.status === 'success',
        ),
      );
      stream.close();
      jobs.close();
    } finally {
      await first.stop();
      await second.stop();
      await database.drop();
    }
  },
  120_000,
);
