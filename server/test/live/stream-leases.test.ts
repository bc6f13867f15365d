import { expect, inject, it } from 'vitest';
import { createTestDatabase, login, startTestServer } from '../../../test/support/test-server.js';
import { isoAfterSeconds } from '../../src/db/time.js';
import { liveStreamLeaseRows } from '../../src/tables/live-stream-leases.js';
import { fixture, HEARTBEAT } from './fixture.js';
import { type OpenStream, openStream } from './sse-client.js';

/**
 * The per-user limit on open event streams counts every replica's (docs/live-data.md "Limits"):
 * a lease per stream in the database, deleted when it ends or its replica stops, lapsing when its
 * replica died (no more renewals). HEARTBEAT: at most 3 streams, heartbeats every second.
 */

// Two API replicas in this process need a server database.
it.skipIf(inject('postgresAdminUrl') === '')(
  "counts a user's streams on every replica, and a dead replica's leases lapse",
  async () => {
    const database = await createTestDatabase('postgres');
    const first = await startTestServer(database, HEARTBEAT);
    const second = await startTestServer(database, HEARTBEAT);
    let secondStopped = false;
    const open: OpenStream[] = [];
    const listen = async (server: { url: string }, token: string) => {
      const stream = await openStream(server, '', { token });
      open.push(stream);
      return stream;
    };
    try {
      const f = await fixture(first);
      const token = f.owner.access_token;
      const held = [await listen(first, token), await listen(first, token), await listen(second, token)];
      expect(held.map((stream) => stream.status)).toEqual([200, 200, 200]);
      for (const server of [first, second]) {
        const refused = await listen(server, token);
        expect(refused.status).toBe(429);
        expect(refused.problem).toMatchObject({ code: 'rate_limited', status: 429 });
      }
      // Another user is not counted with them, on either replica.
      expect((await listen(second, f.viewer.access_token)).status).toBe(200);
      // A stream closed on one replica frees a place on the other (once the server sees it go).
      held[0]?.close();
      let onSecond: OpenStream | undefined;
      await expect
        .poll(async () => {
          const again = await listen(second, token);
          if (again.status === 200) onSecond = again;
          return again.status;
        })
        .toBe(200);

      // A replica that stops deletes its leases: its streams end and stop counting at once.
      secondStopped = true;
      await second.stop();
      await onSecond?.ended;
      await held[2]?.ended;
      expect((await listen(first, token)).status).toBe(200);
      expect((await listen(first, token)).status).toBe(200);
      expect((await listen(first, token)).status).toBe(429);

      // A replica that died holds three leases of `other` it no longer renews: refused until they lapse.
      const other = await login(first, 'other@example.org', 'other@example.org-password');
      const db = first.context.database.db;
      for (const n of [1, 2, 3])
        await liveStreamLeaseRows.insert(db, {
          lease_id: `dead-${n}`,
          caller_key: `user:${other.user.user_id}`,
          replica_id: 'a-replica-that-died',
          expires_at: isoAfterSeconds(2),
        });
      expect((await listen(first, other.access_token)).status).toBe(429);
      await expect
        .poll(
          async () => {
            const again = await listen(first, other.access_token);
            again.close();
            return again.status;
          },
          { timeout: 10_000, interval: 250 },
        )
        .toBe(200);
    } finally {
      for (const stream of open) stream.close();
      await first.stop();
      if (!secondStopped) await second.stop();
      await database.drop();
    }
  },
  120_000,
);
