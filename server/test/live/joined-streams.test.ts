import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect, startTestServer, uploadFile } from '../../../test/support/test-server.js';
import { type Fixture, fixture, HEARTBEAT, hasVersion, newVersion } from './fixture.js';
import { openStream } from './sse-client.js';

/**
 * A dashboard's stream follows the collections joined to those its components read (docs/live-data.md
 * "The stream"): a filter on a joined collection narrows them, so its new versions change them.
 */

let runs = 0;
/** A second collection (`<tag>.csv`) in the fixture's workflow, with a table. */
async function collection(f: Fixture, tag: string): Promise<string> {
  const token = f.owner.access_token;
  const made = await call<{ data_collection_id: string }>(
    f.server,
    'POST',
    `/workflows/${f.workflowId}/datacollections`,
    {
      token,
      json: { tag, pattern: `${tag}\\.csv`, format: 'csv' },
    },
  );
  expect(made.status, made.text).toBe(201);
  await version(f, made.body.data_collection_id, tag);
  return made.body.data_collection_id;
}

/** One more file of `tag` and an upsert: the collection's new version. */
async function version(f: Fixture, collectionId: string, tag: string): Promise<number> {
  runs += 1;
  const token = f.owner.access_token;
  const file = { path: `${tag}.csv`, run: `${tag}_${runs}`, content: `a,c\n${runs},x${runs}\n` };
  expect(await uploadFile(f.server, token, collectionId, file)).toBe(201);
  const upsert = await call<{ version: number }>(f.server, 'POST', '/deltatables/upsert', {
    token,
    json: { data_collection_id: collectionId },
  });
  expect(upsert.status, upsert.text).toBe(200);
  return upsert.body.version;
}

describeEachDialect('dashboard streams and joins', (dialect) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture(await startTestServer(dialect, HEARTBEAT));
  });
  afterAll(async () => {
    await f.server.stop();
    await f.server.database.drop();
  });

  it("sends a dashboard's readers the versions of a collection joined to one it reads, not of others", async () => {
    const joined = await collection(f, 'samples');
    const apart = await collection(f, 'apart');
    const made = await call(f.server, 'POST', `/projects/${f.projectId}/joins`, {
      token: f.owner.access_token,
      json: { name: 'rows_samples', left: f.collectionId, right: joined, on: ['a'] },
    });
    expect(made.status, made.text).toBe(201);
    const stream = await openStream(f.server, `?dashboard_id=${f.dashboardId}`, { token: f.viewer.access_token });
    expect(stream.status).toBe(200);
    try {
      await stream.until((s) => s.lastEventId !== null);
      const apartVersion = await version(f, apart, 'apart');
      const joinedVersion = await version(f, joined, 'samples');
      await stream.until(hasVersion(joined, joinedVersion));
      // Its own collection still comes, after the unjoined one's version was made (and not sent).
      const own = await newVersion(f.server, f);
      await stream.until(hasVersion(f.collectionId, own));
      expect(hasVersion(apart, apartVersion)(stream)).toBe(false);
    } finally {
      stream.close();
    }
  });
});
