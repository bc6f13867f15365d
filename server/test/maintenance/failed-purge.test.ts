import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3FaultProxy, startS3FaultProxy } from '../../../test/support/s3-fault-proxy.js';
import { createTestBucket, s3Available, type TestBucket, testS3Settings } from '../../../test/support/s3-storage.js';
import {
  ADMIN,
  call,
  createTestDatabase,
  DIALECTS,
  login,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';
import { INTERNAL_KEY, naming, projectWithTable } from './support.js';

for (const dialect of DIALECTS) {
  describe.skipIf(!s3Available())(`deleting while storage refuses deletes [${dialect}]`, () => {
    let bucket: TestBucket;
    let proxy: S3FaultProxy;
    let server: TestServer;

    beforeAll(async () => {
      bucket = await createTestBucket();
      const settings = testS3Settings();
      // DeleteObject is a DELETE, DeleteObjects a POST to ?delete.
      proxy = await startS3FaultProxy(
        settings.endpoint as string,
        (req) => req.method === 'DELETE' || (req.method === 'POST' && (req.url ?? '').includes('delete')),
      );
      server = await startTestServer(await createTestDatabase(dialect), {
        SERVICE_JOBS_ENABLED: 'false',
        SERVICE_AUTH_INTERNAL_API_KEY_ENV: INTERNAL_KEY,
        SERVICE_STORAGE_URL: `s3://${bucket.bucket}/tenant`,
        SERVICE_S3_ENDPOINT: proxy.url,
        SERVICE_S3_ACCESS_KEY_ID: settings.accessKeyId as string,
        SERVICE_S3_SECRET_ACCESS_KEY: settings.secretAccessKey as string,
      });
    });
    afterAll(async () => {
      await server?.stop();
      await server?.database.drop();
      proxy?.server.close();
      await bucket?.drop();
    });

    it('still deletes the project, and vacuum removes its storage once deletes work again', async () => {
      const admin = await login(server, ADMIN.email, ADMIN.password);
      const project = await projectWithTable(server, admin.access_token, 'undeletable-storage');
      const ids = [project.collectionId, ...project.fileIds];
      const keys = async () => (await bucket.keys()).map((key) => key.replace(/^tenant\//, ''));

      proxy.fail(true);
      const deleted = await call(server, 'DELETE', `/projects/${project.projectId}`, { token: admin.access_token });
      expect(deleted.status).toBe(204);
      expect((await call(server, 'GET', `/projects/${project.projectId}`, { token: admin.access_token })).status).toBe(
        404,
      );
      expect(naming(await keys(), ids).length).toBeGreaterThan(1);

      proxy.fail(false);
      const vacuum = await call<{ removed_tables: number }>(server, 'POST', '/internal/vacuum', {
        headers: { 'x-internal-key': INTERNAL_KEY },
      });
      expect(vacuum.body.removed_tables).toBe(1);
      expect(naming(await keys(), [project.collectionId])).toEqual([]);
      // The upload goes once older than the retention (it could be one in flight until then).
      await server.context.vacuum.run({ now: Date.now() + 169 * 60 * 60 * 1000 });
      expect(naming(await keys(), ids)).toEqual([]);
    });
  });
}
