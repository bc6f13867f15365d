import { expect } from 'vitest';
import { call, type TestServer, uploadFile } from '../../../test/support/test-server.js';

/**
 * Adds a run named `run` whose file `t.csv` holds these values of `a`, updates the collection's
 * table and waits until its alerts are judged: answers the new version.
 */
export async function addRowsAndUpsert(
  server: TestServer,
  token: string,
  collectionId: string,
  run: string,
  values: readonly number[],
): Promise<number> {
  const content = `a,b\n${values.map((value) => `${value},0`).join('\n')}\n`;
  const status = await uploadFile(server, token, collectionId, { path: 't.csv', run, content });
  expect(status).toBe(201);
  const upsert = await call<{ version: number }>(server, 'POST', '/deltatables/upsert', {
    token,
    json: { data_collection_id: collectionId },
  });
  expect(upsert.status, upsert.text).toBe(200);
  await server.context.alerts.settled();
  return upsert.body.version;
}
