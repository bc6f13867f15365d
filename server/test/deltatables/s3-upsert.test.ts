import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3FaultProxy, startS3FaultProxy } from '../../../test/support/s3-fault-proxy.js';
import { createTestBucket, s3Available, type TestBucket, testS3Settings } from '../../../test/support/s3-storage.js';
import {
  ADMIN,
  call,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

(s3Available() ? describe : describe.skip)('data collections on S3 storage', () => {
  let bucket: TestBucket;
  let proxy: S3FaultProxy;
  let server: TestServer;
  let admin: Session;
  let collectionId: string;

  beforeAll(async () => {
    bucket = await createTestBucket();
    const settings = testS3Settings();
    // Every write fails, as on a broken endpoint.
    proxy = await startS3FaultProxy(
      settings.endpoint as string,
      (req) => req.method === 'PUT' || req.method === 'POST',
    );
    server = await startTestServer('sqlite', {
      SERVICE_STORAGE_URL: `s3://${bucket.bucket}/tenant`,
      SERVICE_S3_ENDPOINT: proxy.url,
      SERVICE_S3_ACCESS_KEY_ID: settings.accessKeyId as string,
      SERVICE_S3_SECRET_ACCESS_KEY: settings.secretAccessKey as string,
    });
    admin = await login(server, ADMIN.email, ADMIN.password);
    const project = await call<{ project_id: string }>(server, 'POST', '/projects', {
      token: admin.access_token,
      json: { name: 's3' },
    });
    const workflow = await call<{ workflow_id: string }>(
      server,
      'POST',
      `/projects/${project.body.project_id}/workflows`,
      {
        token: admin.access_token,
        json: { name: 'wf' },
      },
    );
    collectionId = (
      await call<{ data_collection_id: string }>(
        server,
        'POST',
        `/workflows/${workflow.body.workflow_id}/datacollections`,
        {
          token: admin.access_token,
          json: { tag: 'm', pattern: '(?<site>[^/]+)/m\\.csv', format: 'csv' },
        },
      )
    ).body.data_collection_id;
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
    proxy?.server.close();
    await bucket?.drop();
  });

  async function upload(path: string, content: string) {
    const form = new FormData();
    form.append('path', path);
    form.append('file', new Blob([content]), 'm.csv');
    const response = await fetch(`${server.url}/service/api/v1/datacollections/${collectionId}/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.access_token}` },
      body: form,
    });
    return response.status;
  }

  const preview = async () =>
    (
      await call<{ version: number; rows: { v: number; site: string }[] }>(
        server,
        'GET',
        `/datacollections/${collectionId}/preview?sort=site:asc,v:asc`,
        { token: admin.access_token },
      )
    ).body;

  it('stores uploads and tables in the bucket and queries them through the local cache', async () => {
    expect(await upload('a/m.csv', 'v\n1\n2\n')).toBe(201);
    expect(await upload('b/m.csv', 'v\n3\n')).toBe(201);
    const upsert = await call(server, 'POST', '/deltatables/upsert', {
      token: admin.access_token,
      json: { data_collection_id: collectionId },
    });
    expect(upsert.body).toMatchObject({ version: 0, rows: 3 });
    const keys = await bucket.keys();
    expect(keys.some((key) => key.startsWith(`tenant/deltatables/${collectionId}/_delta_log/`))).toBe(true);
    expect(keys.filter((key) => key.startsWith('tenant/files/'))).toHaveLength(2);
    expect((await preview()).rows.map((row) => [row.site, Number(row.v)])).toEqual([
      ['a', 1],
      ['a', 2],
      ['b', 3],
    ]);
  });

  it('leaves the table exactly as it was when the endpoint fails mid-write, and recovers after', async () => {
    expect(await upload('b/m.csv', 'v\n30\n31\n')).toBe(201);
    proxy.fail(true);
    const failed = await call(server, 'POST', '/deltatables/upsert', {
      token: admin.access_token,
      json: { data_collection_id: collectionId },
    });
    proxy.fail(false);
    expect(failed.status).toBe(503);
    expect(failed.body.code).toBe('service_unavailable');
    expect(await server.context.tableOf(collectionId).latestVersion()).toBe(0);
    expect((await preview()).rows).toHaveLength(3);

    const retried = await call(server, 'POST', '/deltatables/upsert', {
      token: admin.access_token,
      json: { data_collection_id: collectionId },
    });
    expect(retried.body).toMatchObject({ version: 1, rows: 4, files_replaced: 1 });
    expect((await preview()).rows.map((row) => [row.site, Number(row.v)])).toEqual([
      ['a', 1],
      ['a', 2],
      ['b', 30],
      ['b', 31],
    ]);
  });
});
