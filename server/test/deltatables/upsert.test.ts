import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { quoteString } from '../../src/engine/sql.js';

interface Upsert {
  version: number | null;
  rows: number;
  files_added: number;
  files_replaced: number;
  columns: string[];
  code?: string;
  detail?: string;
}

describeEachDialect('upsert into Delta tables', (dialect) => {
  let server: TestServer;
  let owner: Session;
  let viewer: Session;
  let stranger: Session;
  let workflowId: string;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const admin = await login(server, ADMIN.email, ADMIN.password);
    owner = await createUser(server, admin.access_token, 'owner@example.org');
    viewer = await createUser(server, admin.access_token, 'viewer@example.org');
    stranger = await createUser(server, admin.access_token, 'stranger@example.org');
    const project = await call<{ project_id: string }>(server, 'POST', '/projects', {
      token: owner.access_token,
      json: { name: 'p' },
    });
    await call(server, 'PUT', `/projects/${project.body.project_id}/permissions`, {
      token: owner.access_token,
      json: { owners: ['owner@example.org'], viewers: ['viewer@example.org'], is_public: false },
    });
    workflowId = (
      await call<{ workflow_id: string }>(server, 'POST', `/projects/${project.body.project_id}/workflows`, {
        token: owner.access_token,
        json: { name: 'wf' },
      })
    ).body.workflow_id;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  async function collection(tag: string, format: string, pattern: string, extra: Record<string, unknown> = {}) {
    const answer = await call<{ data_collection_id: string }>(
      server,
      'POST',
      `/workflows/${workflowId}/datacollections`,
      {
        token: owner.access_token,
        json: { tag, format, pattern, ...extra },
      },
    );
    return answer.body.data_collection_id;
  }

  async function upload(collectionId: string, path: string, content: string | Buffer, run = 'run_1') {
    const form = new FormData();
    form.append('run', run);
    form.append('path', path);
    form.append('file', new Blob([content]), path.split('/').pop());
    const response = await fetch(`${server.url}/service/api/v1/datacollections/${collectionId}/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.access_token}` },
      body: form,
    });
    expect(response.status, await response.clone().text()).toBe(201);
    return (await response.json()) as { file_id: string };
  }

  const upsert = (collectionId: string, extra: Record<string, unknown> = {}, token = owner.access_token) =>
    call<Upsert>(server, 'POST', '/deltatables/upsert', {
      token,
      json: { data_collection_id: collectionId, ...extra },
    });

  async function rows(collectionId: string, order: string): Promise<Record<string, unknown>[]> {
    const { duckdb } = server.context;
    const connection = await duckdb.connect();
    try {
      const view = await server.context.tableOf(collectionId).view(connection, 'rows_under_test');
      try {
        const sql = `SELECT * EXCLUDE (_run_id, _file_id) FROM rows_under_test ORDER BY ${order}`;
        // BIGINTs arrive as strings (they may not fit a double); these test values do.
        const bigints = (await connection.describe(sql))
          .filter((column) => column.type.kind === 'scalar' && column.type.name === 'BIGINT')
          .map((column) => column.name);
        return (await connection.query(sql)).map((row) =>
          Object.fromEntries(
            Object.entries(row).map(([k, v]) => [k, bigints.includes(k) && v !== null ? Number(v) : v]),
          ),
        );
      } finally {
        await view.release();
      }
    } finally {
      connection.close();
    }
  }

  it('adds new files, skips unchanged ones, and replaces exactly the rows of a changed file', async () => {
    const id = await collection('measures', 'csv', '(?<island>[^/]+)/measures\\.csv');
    await upload(id, 'Biscoe/measures.csv', 'sample,mass\nA1,3750\nA2,3800\n');
    await upload(id, 'Dream/measures.csv', 'sample,mass\nB1,3300\n');
    const first = await upsert(id);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ version: 0, rows: 3, files_added: 2, files_replaced: 0 });
    expect(first.body.columns).toEqual(['sample', 'mass', '_run_id', 'island', '_file_id']);
    expect(await rows(id, 'sample')).toEqual([
      { sample: 'A1', mass: 3750, island: 'Biscoe' },
      { sample: 'A2', mass: 3800, island: 'Biscoe' },
      { sample: 'B1', mass: 3300, island: 'Dream' },
    ]);

    const again = await upsert(id);
    expect(again.body).toMatchObject({ version: 0, rows: 3, files_added: 0, files_replaced: 0 });

    await upload(id, 'Dream/measures.csv', 'sample,mass\nB1,3350\nB2,3400\n');
    const changed = await upsert(id);
    expect(changed.body).toMatchObject({ version: 1, rows: 4, files_added: 0, files_replaced: 1 });
    expect(await rows(id, 'sample')).toEqual([
      { sample: 'A1', mass: 3750, island: 'Biscoe' },
      { sample: 'A2', mass: 3800, island: 'Biscoe' },
      { sample: 'B1', mass: 3350, island: 'Dream' },
      { sample: 'B2', mass: 3400, island: 'Dream' },
    ]);

    const rebuilt = await upsert(id, { overwrite: true });
    expect(rebuilt.body).toMatchObject({ version: 2, rows: 4 });
    const versions = await server.context.tableOf(id).history();
    expect(versions.map((entry) => entry.version)).toEqual([0, 1, 2]);
  });

  /** The columns a data file of the table holds in its Parquet schema. */
  async function parquetColumns(path: string): Promise<string[]> {
    const connection = await server.context.duckdb.connect();
    try {
      const described = await connection.describe(`SELECT * FROM read_parquet(${quoteString(path)})`);
      return described.map((column) => column.name);
    } finally {
      connection.close();
    }
  }

  async function runIdsBySample(id: string): Promise<{ sample: string; _run_id: string | null }[]> {
    const table = server.context.tableOf(id);
    const connection = await server.context.duckdb.connect();
    try {
      const view = await table.view(connection, 'runs_under_test');
      try {
        return (await connection.query('SELECT sample, _run_id FROM runs_under_test ORDER BY sample')) as {
          sample: string;
          _run_id: string | null;
        }[];
      } finally {
        await view.release();
      }
    } finally {
      connection.close();
    }
  }

  it('keeps each row’s run id as a partition value of its data file, with and without keys', async () => {
    for (const keys of [undefined, ['sample']]) {
      const id = await collection(`runs-${keys ? 'keyed' : 'plain'}`, 'csv', '(?<island>[^/]+)/runs\\.csv', {
        ...(keys ? { keys } : {}),
      });
      const a = (await upload(id, 'Biscoe/runs.csv', 'sample,mass\nA1,1\nA2,2\n', 'run_a')) as { run_id?: string };
      const b = (await upload(id, 'Dream/runs.csv', 'sample,mass\nB1,3\n', 'run_b')) as { run_id?: string };
      expect(a.run_id).toBeDefined();
      expect(a.run_id).not.toBe(b.run_id);
      expect((await upsert(id)).status).toBe(200);
      const snapshot = await server.context.tableOf(id).snapshot();
      expect(snapshot.partitionColumns).toEqual(['_file_id', '_run_id']);
      expect(snapshot.schema.fields.find((field) => field.name === '_run_id')?.type).toBe('string');
      expect(await runIdsBySample(id)).toEqual([
        { sample: 'A1', _run_id: a.run_id },
        { sample: 'A2', _run_id: a.run_id },
        { sample: 'B1', _run_id: b.run_id },
      ]);
      expect(snapshot.files.map((file) => file.partitionValues._run_id).sort()).toEqual([a.run_id, b.run_id].sort());
      for (const file of snapshot.files) {
        // Stored once in the log, not on every row of the file.
        const path = server.context.delta.storage.localPath(file.key) as string;
        expect(await parquetColumns(path)).not.toContain('_run_id');
      }
    }
  });

  it('moves the run id of a table written with it in its data files into partition values on the next write', async () => {
    const id = await collection('legacy', 'csv', '(?<island>[^/]+)/legacy\\.csv');
    const a = (await upload(id, 'Biscoe/legacy.csv', 'sample,mass\nA1,1\nA2,2\n', 'run_a')) as { run_id?: string };
    expect((await upsert(id)).status).toBe(200);
    const table = server.context.tableOf(id);
    const current = await table.snapshot();

    // Rewrite the table as earlier versions wrote it: the run id a column of every row, only
    // `_file_id` a partition column.
    const workDirectory = await mkdtemp(join(tmpdir(), 'legacy-layout-'));
    const connection = await server.context.duckdb.connect();
    try {
      const add = [];
      for (const file of current.files) {
        const local = server.context.delta.storage.localPath(file.key) as string;
        const path = join(workDirectory, `${add.length}.parquet`);
        await connection.run(
          `COPY (SELECT sample, mass, ${quoteString(file.partitionValues._run_id ?? '')} AS _run_id, island FROM read_parquet(${quoteString(local)})) TO ${quoteString(path)} (FORMAT parquet)`,
        );
        add.push({ localPath: path, partitionValues: { _file_id: file.partitionValues._file_id ?? null } });
      }
      await table.commit({
        operation: 'WRITE',
        add,
        removeAll: true,
        partitionColumns: ['_file_id'],
        schema: current.schema,
      });
    } finally {
      connection.close();
      await rm(workDirectory, { recursive: true, force: true });
    }
    const legacy = await table.snapshot();
    expect(legacy.partitionColumns).toEqual(['_file_id']);
    expect(await parquetColumns(server.context.delta.storage.localPath(legacy.files[0]!.key) as string)).toContain(
      '_run_id',
    );

    const b = (await upload(id, 'Dream/legacy.csv', 'sample,mass\nB1,3\n', 'run_b')) as { run_id?: string };
    const answer = await upsert(id);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ rows: 3, files_added: 1, files_replaced: 0 });
    expect(answer.body.columns).toEqual(['sample', 'mass', '_run_id', 'island', '_file_id']);
    const upgraded = await table.snapshot();
    expect(upgraded.partitionColumns).toEqual(['_file_id', '_run_id']);
    expect(await runIdsBySample(id)).toEqual([
      { sample: 'A1', _run_id: a.run_id },
      { sample: 'A2', _run_id: a.run_id },
      { sample: 'B1', _run_id: b.run_id },
    ]);
    for (const file of upgraded.files) {
      expect(await parquetColumns(server.context.delta.storage.localPath(file.key) as string)).not.toContain('_run_id');
    }
  });

  it('merges by key: a later file’s row replaces the earlier row with the same key', async () => {
    const id = await collection('samples', 'csv', 'samples_(?<batch>\\d+)\\.csv', { keys: ['sample'] });
    await upload(id, 'samples_1.csv', 'sample,value\ns1,1\ns2,2\n');
    await upsert(id);
    await upload(id, 'samples_2.csv', 'sample,value\ns2,20\ns3,30\n');
    const merged = await upsert(id);
    expect(merged.body).toMatchObject({ rows: 3, files_added: 1 });
    expect(await rows(id, 'sample')).toEqual([
      { sample: 's1', value: 1, batch: '1' },
      { sample: 's2', value: 20, batch: '2' },
      { sample: 's3', value: 30, batch: '2' },
    ]);
  });

  it('widens types where that loses nothing and adds new columns, with NULLs for older rows', async () => {
    const id = await collection('drift', 'csv', 'drift_\\d+\\.csv');
    await upload(id, 'drift_1.csv', 'k,n\na,1\n');
    await upsert(id);
    await upload(id, 'drift_2.csv', 'k,n,extra\nb,2.5,x\n');
    const widened = await upsert(id);
    expect(widened.status).toBe(200);
    expect(await rows(id, 'k')).toEqual([
      { k: 'a', n: 1, extra: null },
      { k: 'b', n: 2.5, extra: 'x' },
    ]);
  });

  it('refuses a column whose types cannot be combined, naming the file and column, and keeps the table', async () => {
    const id = await collection('clash', 'csv', 'clash_\\d+\\.csv');
    await upload(id, 'clash_1.csv', 'k,n\na,1\n');
    const before = (await upsert(id)).body.version;
    await upload(id, 'clash_2.csv', 'k,n\nb,2024-01-01\n');
    const refused = await upsert(id);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain('clash_2.csv');
    expect(refused.body.detail).toContain('column n');
    expect(await server.context.tableOf(id).latestVersion()).toBe(before);
  });

  it('refuses unreadable files with a clear error naming them', async () => {
    const csv = await collection('ragged', 'csv', 'ragged\\.csv');
    await upload(csv, 'ragged.csv', 'a,b\n1,2\n3,4,5\n6\n');
    const ragged = await upsert(csv);
    expect(ragged.status).toBe(400);
    expect(ragged.body.detail).toContain('ragged.csv');

    // DuckDB's sniffer would otherwise skip the header and the short row and read nothing.
    const short = await collection('short', 'csv', 'short\\.csv');
    await upload(short, 'short.csv', 'a,b\n1\n2,3,4\n');
    expect((await upsert(short)).status).toBe(400);

    const quoting = await collection('quoting', 'csv', 'quoting\\.csv');
    await upload(quoting, 'quoting.csv', 'a,b\n"never closed,1\n2,3\n');
    const badQuote = await upsert(quoting);
    expect(badQuote.status).toBe(400);
    expect(badQuote.body.detail).toContain('quoting.csv');

    const parquet = await collection('fake', 'parquet', 'fake\\.parquet');
    await upload(parquet, 'fake.parquet', 'this is not parquet');
    expect((await upsert(parquet)).status).toBe(400);

    const json = await collection('objects', 'json', 'objects\\.json');
    await upload(json, 'objects.json', '{"not": "an array"');
    expect((await upsert(json)).status).toBe(400);

    const latin = await collection('latin', 'csv', 'latin\\.csv');
    await upload(
      latin,
      'latin.csv',
      Buffer.concat([Buffer.from('name\n'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])]),
    );
    expect((await upsert(latin)).status).toBe(400);
  });

  it('reads past the type sample: a late value widens the column, a late bad line is refused by file name', async () => {
    const late = await collection('late', 'csv', 'late\\.csv');
    const ints = Array.from({ length: 30_000 }, (_, i) => `${i}`).join('\n');
    await upload(late, 'late.csv', `n\n${ints}\n2.5\n`);
    const widened = await upsert(late);
    expect(widened.status).toBe(200);
    expect(widened.body.rows).toBe(30_001);

    const broken = await collection('broken', 'csv', 'broken\\.csv');
    const pairs = Array.from({ length: 30_000 }, (_, i) => `${i},${i}`).join('\n');
    await upload(broken, 'broken.csv', `a,b\n${pairs}\n1,2,3\n`);
    const refused = await upsert(broken);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain('broken.csv');
    expect(refused.body.detail).not.toContain(server.database.dataDir);
  });

  it('reads ndjson, json arrays, tsv and parquet, and treats an empty file as no rows', async () => {
    const nd = await collection('nd', 'ndjson', 'x\\.ndjson');
    await upload(nd, 'x.ndjson', '{"a":1}\n{"a":2}\n');
    expect((await upsert(nd)).body.rows).toBe(2);
    const arr = await collection('arr', 'json', 'x\\.json');
    await upload(arr, 'x.json', '[{"a":1},{"a":2},{"a":3}]');
    expect((await upsert(arr)).body.rows).toBe(3);
    const tsv = await collection('tsv', 'tsv', 'x\\.tsv');
    await upload(tsv, 'x.tsv', 'a\tb\n1\t2\n');
    await upload(tsv, 'y/../x.tsv'.replace('y/../', ''), 'a\tb\n1\t2\n3\t4\n');
    expect((await upsert(tsv)).body.rows).toBe(2);
    const empty = await collection('empty', 'csv', 'e\\.csv');
    await upload(empty, 'e.csv', '');
    const answer = await upsert(empty);
    expect(answer.status).toBe(200);
    expect(answer.body.rows).toBe(0);
  });

  it('lands two concurrent upserts of one collection one after the other, rows exact', async () => {
    const id = await collection('race', 'csv', 'race_\\d+\\.csv');
    for (let i = 0; i < 4; i++) await upload(id, `race_${i}.csv`, `v\n${i}\n${i + 10}\n`);
    const answers = await Promise.all([upsert(id), upsert(id)]);
    for (const answer of answers) expect(answer.status).toBe(200);
    expect(await rows(id, 'v')).toHaveLength(8);
  });

  it('lets editors upsert; viewers get 403, others 404, anonymous 401', async () => {
    const id = await collection('guarded', 'csv', 'g\\.csv');
    expect((await upsert(id, {}, viewer.access_token)).status).toBe(403);
    expect((await upsert(id, {}, stranger.access_token)).status).toBe(404);
    expect((await call(server, 'POST', '/deltatables/upsert', { json: { data_collection_id: id } })).status).toBe(401);
    const unknownFile = await upsert(id, { file_ids: ['nope'] });
    expect(unknownFile.status).toBe(400);
  });
});
