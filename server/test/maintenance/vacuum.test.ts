import { readdir } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { VacuumAnswer } from '@service/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN, call, createProjectWithUpload, login, type Session } from '../../../test/support/test-server.js';
import {
  type BackendServer,
  describeEachBackend,
  INTERNAL_KEY,
  naming,
  projectWithTable,
  startBackendServer,
} from './support.js';

const HOUR = 60 * 60 * 1000;
const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'delta');

describeEachBackend('POST /internal/vacuum', (dialect, storage) => {
  let backend: BackendServer;
  let admin: Session;
  beforeAll(async () => {
    backend = await startBackendServer(dialect, storage, { SERVICE_DELTATABLES_VACUUM_RETENTION_HOURS: '24' });
    admin = await login(backend.server, ADMIN.email, ADMIN.password);
  });
  afterAll(async () => {
    await backend?.stop();
  });

  const vacuum = (json?: unknown, key = INTERNAL_KEY) =>
    call<VacuumAnswer & { code?: string }>(backend.server, 'POST', '/internal/vacuum', {
      headers: { 'x-internal-key': key },
      ...(json === undefined ? {} : { json }),
    });

  async function rowsAt(collectionId: string, version?: number): Promise<number> {
    const { duckdb, tableOf } = backend.server.context;
    const table = tableOf(collectionId);
    const connection = await duckdb.connect();
    try {
      const scan = await table.scan(connection, await table.snapshot(version === undefined ? {} : { version }));
      try {
        const [row] = await connection.query(`SELECT count(*)::INTEGER AS n FROM (${scan.sql})`);
        return Number(row?.n);
      } finally {
        scan.release();
      }
    } finally {
      connection.close();
    }
  }

  it('keeps the versions within the retention readable and removes files only older versions need', async () => {
    const { server } = backend;
    const project = await projectWithTable(server, admin.access_token, 'time-travel');
    const rewrite = await call<{ version: number }>(server, 'POST', '/deltatables/upsert', {
      token: admin.access_token,
      json: { data_collection_id: project.collectionId, overwrite: true },
    });
    expect(rewrite.body.version).toBe(1);
    const table = server.context.tableOf(project.collectionId);
    const first = await table.snapshot({ version: 0 });
    const replaced = first.files.map((file) => file.key);
    expect(replaced.length).toBeGreaterThan(0);
    // A data file a failed write left: no version names it.
    const orphan = `${table.root}/part-failed-write.parquet`;
    await server.context.storage.put(orphan, 'never committed');

    const travel = await call(server, 'GET', `/datacollections/${project.collectionId}/preview?version=0`, {
      token: admin.access_token,
    });
    expect(travel.status).toBe(200);

    // Now: everything is younger than the retention.
    const now = await vacuum();
    expect(now.status).toBe(200);
    expect(now.body).toMatchObject({ dry_run: false, retention_hours: 24, removed_data_files: 0, failures: [] });
    expect(now.body.tables_vacuumed).toBeGreaterThanOrEqual(1);
    expect(naming(now.body.removed_keys, [project.collectionId])).toEqual([]);
    expect(await rowsAt(project.collectionId, 0)).toBe(2);

    // A day and an hour later (the vacuum's own clock): version 0 left the retention.
    const later = Date.now() + 25 * HOUR;
    const dry = await server.context.vacuum.run({ now: later, dryRun: true });
    expect(naming(dry.removed_keys, [project.collectionId]).sort()).toEqual([...replaced, orphan].sort());
    expect(await server.context.storage.head(orphan)).not.toBeNull();
    const done = await server.context.vacuum.run({ now: later });
    expect(naming(done.removed_keys, [project.collectionId]).sort()).toEqual([...replaced, orphan].sort());
    expect(done.removed_data_files).toBeGreaterThanOrEqual(replaced.length + 1);
    expect(done.removed_bytes).toBeGreaterThan(0);
    for (const key of [...replaced, orphan]) expect(await server.context.storage.head(key)).toBeNull();
    expect(await rowsAt(project.collectionId)).toBe(2);
    await expect(rowsAt(project.collectionId, 0)).rejects.toThrow();
    // Asking for it is the client's mistake, answered as such.
    const gone = await call<{ code: string; detail: string }>(
      server,
      'GET',
      `/datacollections/${project.collectionId}/preview?version=0`,
      { token: admin.access_token },
    );
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('not_found');
    expect(gone.body.detail).toContain('vacuum');
    const preview = await call(server, 'GET', `/datacollections/${project.collectionId}/preview`, {
      token: admin.access_token,
    });
    expect(preview.status).toBe(200);
  });

  it('reports without removing in a dry run, then removes the tables of deleted collections', async () => {
    const { server } = backend;
    const project = await projectWithTable(server, admin.access_token, 'dry-run');
    await server.context.database.db.deleteFrom('data_collections').where('id', '=', project.collectionId).execute();
    const before = naming(await backend.keys(), [project.collectionId]);
    expect(before.length).toBeGreaterThan(1);

    const dry = await vacuum({ dry_run: true });
    expect(dry.status).toBe(200);
    expect(dry.body.dry_run).toBe(true);
    expect(dry.body.removed_tables).toBe(1);
    expect(naming(dry.body.removed_keys, [project.collectionId]).length).toBeGreaterThan(0);
    expect(naming(await backend.keys(), [project.collectionId])).toEqual(before);

    const wet = await vacuum({});
    expect(wet.body.removed_tables).toBe(1);
    expect(wet.body.removed_objects).toBe(wet.body.removed_keys.length);
    expect(naming(await backend.keys(), [project.collectionId])).toEqual([]);
    const claims = await server.context.database.db
      .selectFrom('delta_commits')
      .select('table_id')
      .where('table_id', '=', project.collectionId)
      .execute();
    expect(claims).toEqual([]);
    expect((await vacuum()).body.removed_tables).toBe(0);
  });

  it('reports a table it cannot vacuum and goes on with the others', async () => {
    const { server } = backend;
    const healthy = await projectWithTable(server, admin.access_token, 'healthy');
    const foreign = await createProjectWithUpload(server, admin.access_token, 'foreign-table');
    // A Databricks table with deletion vectors where the collection's table would be.
    const source = join(FIXTURES, 'table-with-dv-small', 'delta');
    const root = server.context.tableOf(foreign.collectionId).root;
    for (const entry of await readdir(source, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const path = join(entry.parentPath, entry.name);
      await server.context.storage.putFile(`${root}/${relative(source, path).split(sep).join('/')}`, path);
    }

    const answer = await vacuum();
    expect(answer.status).toBe(200);
    expect(answer.body.failures).toEqual([
      { target: `deltatables/${foreign.collectionId}`, message: expect.stringMatching(/deletionVectors/) },
    ]);
    expect(answer.body.tables_vacuumed).toBeGreaterThanOrEqual(1);
    // Nothing of the table it could not read was touched.
    expect(naming(answer.body.removed_keys, [foreign.collectionId])).toEqual([]);
    expect(naming(await backend.keys(), [healthy.collectionId]).length).toBeGreaterThan(1);
    await server.context.database.db.deleteFrom('data_collections').where('id', '=', foreign.collectionId).execute();
  });

  it('refuses a wrong key and a malformed body', async () => {
    const wrong = await vacuum(undefined, `${INTERNAL_KEY}x`);
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('invalid_key');
    const admin = await login(backend.server, ADMIN.email, ADMIN.password);
    const asUser = await call(backend.server, 'POST', '/internal/vacuum', { token: admin.access_token });
    expect(asUser.status).toBe(401);
    const malformed = await vacuum({ dry_run: 'yes' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('validation_failed');
    expect(malformed.headers.get('content-type')).toContain('application/problem+json');
  });
});
