import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestBucket, s3Available, type TestBucket, testS3Settings } from '../../../test/support/s3-storage.js';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  type Dialect,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';

interface Preview {
  version: number | null;
  rows: { a: number; b: number }[];
  total: number;
}

/**
 * The query path keeps what it read of a table version (snapshot, files, row count): each upsert
 * must still show in the very next request, on either database and on S3 storage.
 */
function suite(dialect: Dialect, s3: boolean) {
  let bucket: TestBucket | null = null;
  let server: TestServer;
  let admin: Session;
  let collectionId: string;

  beforeAll(async () => {
    let env: Record<string, string> = {};
    if (s3) {
      bucket = await createTestBucket();
      const settings = testS3Settings();
      env = {
        SERVICE_STORAGE_URL: `s3://${bucket.bucket}/tenant`,
        SERVICE_S3_ENDPOINT: settings.endpoint as string,
        SERVICE_S3_ACCESS_KEY_ID: settings.accessKeyId as string,
        SERVICE_S3_SECRET_ACCESS_KEY: settings.secretAccessKey as string,
      };
    }
    server = await startTestServer(dialect, env);
    admin = await login(server, ADMIN.email, ADMIN.password);
    ({ collectionId } = await createProjectWithUpload(server, admin.access_token, 'versions', 'a,b\n1,10\n2,20\n'));
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
    await bucket?.drop();
  });

  const get = async <T>(path: string) => {
    const answer = await call<T>(server, 'GET', path, { token: admin.access_token });
    expect(answer.status, answer.text).toBe(200);
    return answer.body;
  };
  const preview = (query = '') => get<Preview>(`/datacollections/${collectionId}/preview?sort=a:asc${query}`);
  const upsert = async (csv: string) => {
    expect(await uploadFile(server, admin.access_token, collectionId, { path: 't.csv', content: csv })).toBe(201);
    const answer = await call(server, 'POST', '/deltatables/upsert', {
      token: admin.access_token,
      json: { data_collection_id: collectionId },
    });
    expect(answer.status, answer.text).toBe(200);
  };

  it('shows every new version in the next request, and earlier versions as they were', async () => {
    await upsert('a,b\n1,10\n2,20\n');
    const first = await preview();
    expect(first).toMatchObject({ version: 0, total: 2 });
    expect(first.rows.map((row) => Number(row.a))).toEqual([1, 2]);
    // Read twice: the second answer comes from what the first read kept.
    expect(await preview()).toEqual(first);

    await upsert('a,b\n1,10\n2,20\n3,30\n4,40\n5,50\n');
    const second = await preview();
    expect(second.version).toBeGreaterThan(0);
    expect(second.rows.map((row) => Number(row.a))).toEqual([1, 2, 3, 4, 5]);
    expect(second.total).toBe(5);
    const filters = encodeURIComponent(JSON.stringify([{ column: 'a', op: 'ge', value: 4 }]));
    expect(await preview(`&filters=${filters}`)).toMatchObject({ total: 2, rows: [{ a: 4 }, { a: 5 }] });
    expect(await get(`/datacollections/${collectionId}/summary`)).toMatchObject({ rows: 5 });
    expect(await preview('&version=0')).toEqual(first);
    expect(await preview()).toEqual(second);
  });
}

describeEachDialect('preview of new table versions', (dialect) => suite(dialect, false));
(s3Available() ? describe : describe.skip)('preview of new table versions (S3 storage)', () => suite('sqlite', true));
