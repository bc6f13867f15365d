import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

/** A pass-through to the S3 service that can be told to refuse deletes, as a failing endpoint would. */
function refusingDeletes(target: string): Promise<{ server: Server; url: string; refuse: (on: boolean) => void }> {
  let refusing = false;
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    // DeleteObject is a DELETE, DeleteObjects a POST to ?delete.
    if (refusing && (req.method === 'DELETE' || (req.method === 'POST' && (req.url ?? '').includes('delete')))) {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/xml' }).end('<Error><Code>ServiceUnavailable</Code></Error>');
      return;
    }
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        refuse: (on) => {
          refusing = on;
        },
      }),
    ),
  );
}

for (const dialect of DIALECTS) {
  describe.skipIf(!s3Available())(`deleting while storage refuses deletes [${dialect}]`, () => {
    let bucket: TestBucket;
    let proxy: Awaited<ReturnType<typeof refusingDeletes>>;
    let server: TestServer;

    beforeAll(async () => {
      bucket = await createTestBucket();
      const settings = testS3Settings();
      proxy = await refusingDeletes(settings.endpoint as string);
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

      proxy.refuse(true);
      const deleted = await call(server, 'DELETE', `/projects/${project.projectId}`, { token: admin.access_token });
      expect(deleted.status).toBe(204);
      expect((await call(server, 'GET', `/projects/${project.projectId}`, { token: admin.access_token })).status).toBe(
        404,
      );
      expect(naming(await keys(), ids).length).toBeGreaterThan(1);

      proxy.refuse(false);
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
