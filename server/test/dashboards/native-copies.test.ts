import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DashboardComponentInput, DashboardFilter } from '@service/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Session, type TestServer, uploadFile } from '../../../test/support/test-server.js';
import { type DataAnswer, PENGUINS, projectWithTable, serverWithPeople, upsert } from './analytics-table.js';

/**
 * Large table versions get a DuckDB-native copy (engine/native-copies.ts), read in place of their
 * Parquet files once built. Here every version qualifies (`SERVICE_DUCKDB_COPY_MIN_ROWS=0`), and a
 * second server with copies off computes the same dashboard from the Parquet files: every
 * component type must answer exactly the same from both.
 */
const components = (data_collection_id: string): DashboardComponentInput[] => [
  {
    component_id: 'scatter',
    type: 'figure',
    chart: 'scatter',
    x: 'mass',
    y: 'flipper',
    color: 'species',
    max_points: 100,
    data_collection_id,
  },
  { component_id: 'line', type: 'figure', chart: 'line', x: 'day', y: 'mass', agg: 'mean', data_collection_id },
  { component_id: 'binned', type: 'figure', chart: 'line', x: 'mass', max_points: 100, data_collection_id },
  { component_id: 'area', type: 'figure', chart: 'area', x: 'day', color: 'island', data_collection_id },
  {
    component_id: 'bar',
    type: 'figure',
    chart: 'bar',
    x: 'species',
    y: 'mass',
    agg: 'mean',
    max_categories: 2,
    data_collection_id,
  },
  { component_id: 'pie', type: 'figure', chart: 'pie', color: 'species', data_collection_id },
  {
    component_id: 'histogram',
    type: 'figure',
    chart: 'histogram',
    x: 'mass',
    bins: 7,
    color: 'island',
    data_collection_id,
  },
  { component_id: 'box', type: 'figure', chart: 'box', x: 'species', y: 'mass', data_collection_id },
  { component_id: 'violin', type: 'figure', chart: 'violin', x: 'island', y: 'mass', bins: 4, data_collection_id },
  { component_id: 'heatmap', type: 'figure', chart: 'heatmap', x: 'species', y: 'island', data_collection_id },
  { component_id: 'count', type: 'card', agg: 'count', data_collection_id },
  { component_id: 'mean', type: 'card', agg: 'mean', column: 'mass', data_collection_id },
  { component_id: 'median', type: 'card', agg: 'median', column: 'flipper', data_collection_id },
  { component_id: 'species', type: 'interactive', widget: 'select', column: 'species', data_collection_id },
  { component_id: 'island', type: 'interactive', widget: 'multiselect', column: 'island', data_collection_id },
  { component_id: 'mass_range', type: 'interactive', widget: 'range', column: 'mass', data_collection_id },
  { component_id: 'flipper_range', type: 'interactive', widget: 'range', column: 'flipper', data_collection_id },
  { component_id: 'days', type: 'interactive', widget: 'date_range', column: 'day', data_collection_id },
  { component_id: 'male', type: 'interactive', widget: 'switch', column: 'male', data_collection_id },
  { component_id: 'sample', type: 'interactive', widget: 'search', column: 'sample', data_collection_id },
  { component_id: 'table', type: 'table', page_size: 15, data_collection_id },
];

const FILTER_SETS: DashboardFilter[][] = [
  [],
  [
    { component_id: 'mass_range', value: [3100, 3900] },
    { component_id: 'island', value: ['Dream'] },
  ],
  [
    { component_id: 'bar', value: ['Gentoo'] },
    { component_id: 'days', value: ['2024-01-05', '2024-01-20'] },
  ],
  // Ranges on a double column (flipper: 0.5 … 9.5), bounds on values and between them, and huge.
  [{ component_id: 'flipper_range', value: [2.5, 6.5] }],
  [{ component_id: 'flipper_range', value: [2.5000001, 6.5] }],
  [
    { component_id: 'flipper_range', value: [3.25, null] },
    { component_id: 'mass_range', value: [3100, 4000] },
  ],
  [{ component_id: 'flipper_range', value: [null, 4.5] }],
  [{ component_id: 'flipper_range', value: [-1e300, 1e300] }],
];

interface Started {
  server: TestServer;
  ada: Session;
  dashboardId: string;
  collectionId: string;
}

async function withDashboard(env: Record<string, string>): Promise<Started> {
  const started = await serverWithPeople('sqlite', env);
  const ada = await started.session('ada@example.org');
  const penguins = await projectWithTable(started.server, ada.access_token, 'Penguins');
  const created = await call<{ dashboard_id: string }>(started.server, 'POST', '/dashboards', {
    token: ada.access_token,
    json: {
      project_id: penguins.projectId,
      title: 'Every component',
      components: components(penguins.collectionId),
    },
  });
  if (created.status !== 201) throw new Error(created.text);
  return { server: started.server, ada, dashboardId: created.body.dashboard_id, collectionId: penguins.collectionId };
}

async function data(started: Started, filters: DashboardFilter[]): Promise<DataAnswer> {
  const answer = await call<DataAnswer>(started.server, 'POST', `/dashboards/${started.dashboardId}/data`, {
    token: started.ada.access_token,
    json: { filters },
  });
  if (answer.status !== 200) throw new Error(answer.text);
  return answer.body;
}

async function preview(started: Started, version?: number) {
  const query = version === undefined ? '' : `?version=${version}`;
  const answer = await call<{ version: number | null; rows: unknown[]; total?: number }>(
    started.server,
    'GET',
    `/datacollections/${started.collectionId}/preview${query}`,
    { token: started.ada.access_token },
  );
  if (answer.status !== 200) throw new Error(answer.text);
  return answer.body;
}

/** Rows without the columns naming the run and file they came from (each server ingested its own). */
function withoutOrigins(answer: unknown): unknown {
  return JSON.parse(JSON.stringify(answer), (key, value: unknown) =>
    key === '_run_id' || key === '_file_id' ? undefined : value,
  );
}

/** A CSV download's lines, without the columns naming the run and file the rows came from. */
async function csvOf(started: Started, path: string): Promise<string[]> {
  const response = await fetch(`${started.server.url}/service/api/v1${path}`, {
    headers: { authorization: `Bearer ${started.ada.access_token}` },
  });
  if (response.status !== 200) throw new Error(await response.text());
  const [header = '', ...lines] = (await response.text()).trim().split(/\r?\n/);
  const names = header.split(',');
  const kept = (cells: string[]) => cells.filter((_, index) => !['_run_id', '_file_id'].includes(names[index] ?? ''));
  return [header, ...lines].map((line) => kept(line.split(',')).join(','));
}

/** The `.duckdb` files of the server's copies folder. */
async function copyFiles(server: TestServer): Promise<string[]> {
  const root = join(server.context.config.dataDir, 'tmp', 'copies');
  const folders = await readdir(root);
  const files = await Promise.all(folders.map((folder) => readdir(join(root, folder))));
  return files.flat().filter((name) => name.endsWith('.duckdb'));
}

describe('native copies of table versions', () => {
  let parquet: Started;
  let copied: Started;

  beforeAll(async () => {
    parquet = await withDashboard({ SERVICE_DUCKDB_COPIES: '0' });
    copied = await withDashboard({ SERVICE_DUCKDB_COPY_MIN_ROWS: '0' });
  });
  afterAll(async () => {
    for (const started of [parquet, copied]) {
      await started.server.stop();
      await started.server.database.drop();
    }
  });

  it('answers every component, filtered or not, exactly as the Parquet files do', async () => {
    // The first read asks for the copy; the dashboard is read once it is built.
    await preview(copied);
    const copies = copied.server.context.copies;
    await copies.idle();
    expect(copies.counts).toMatchObject({ built: 1, failed: 0, clustered: 0 });
    // The dashboard filters mass, flipper and day by range: its first read has the copy built
    // again, clustered by them, in place of the one the preview asked for.
    await data(copied, []);
    await copies.idle();
    expect(copies.counts).toMatchObject({ built: 2, failed: 0, clustered: 1, evicted: 0 });
    expect(copies.size).toBe(1);
    // Clustered, the copy holds the rows in another order than the files: each row's position in
    // them is kept beside it, for the readers that show rows unsorted.
    const positions = await copied.server.context.duckdb.withConnection(async (connection) => {
      const [database] = await connection.query(
        "SELECT database_name FROM duckdb_databases() WHERE database_name LIKE 'native_%'",
      );
      const rows = await connection.query(
        `SELECT "__file_position" AS "p" FROM "${database?.database_name}".main."rows"`,
      );
      return rows.map((row) => Number(row.p));
    });
    expect(positions.length).toBeGreaterThan(10);
    expect([...positions].sort((a, b) => a - b)).not.toEqual(positions);
    const readsBefore = copies.counts.reads;
    for (const filters of FILTER_SETS) {
      const [fromParquet, fromCopy] = [await data(parquet, filters), await data(copied, filters)];
      expect(Object.keys(fromCopy.components).sort()).toEqual(Object.keys(fromParquet.components).sort());
      expect(Object.keys(fromCopy.components)).toHaveLength(components('').length);
      for (const [id, answer] of Object.entries(fromParquet.components)) {
        expect(answer, `${id} under ${JSON.stringify(filters)}`).not.toHaveProperty('error');
        expect(withoutOrigins(fromCopy.components[id]), `${id} under ${JSON.stringify(filters)}`).toEqual(
          withoutOrigins(answer),
        );
      }
    }
    expect(copied.server.context.copies.counts.reads).toBeGreaterThan(readsBefore);
    // An unsorted page is the same rows in the same order, and so are the downloads.
    expect(withoutOrigins(await preview(copied))).toEqual(withoutOrigins(await preview(parquet)));
    for (const path of [
      (started: Started) => `/datacollections/${started.collectionId}/download?format=csv`,
      (started: Started) => `/dashboards/${started.dashboardId}/components/table/download`,
    ]) {
      const [fromCopy, fromParquet] = [await csvOf(copied, path(copied)), await csvOf(parquet, path(parquet))];
      expect(fromCopy.length).toBeGreaterThan(10);
      expect(fromCopy).toEqual(fromParquet);
    }
    expect(parquet.server.context.copies.counts).toMatchObject({ built: 0, reads: 0 });
  });

  it('copies a new version on its first read, keeping at most SERVICE_DUCKDB_COPIES', async () => {
    const internalKey = 'native-copies-internal-key-of-at-least-32-characters';
    const started = await withDashboard({
      SERVICE_DUCKDB_COPY_MIN_ROWS: '0',
      SERVICE_DUCKDB_COPIES: '1',
      SERVICE_AUTH_INTERNAL_API_KEY_ENV: internalKey,
    });
    try {
      const copies = started.server.context.copies;
      const first = await preview(started);
      await copies.idle();
      // A second version: one more penguin.
      const more = `${PENGUINS}S120,Gentoo,Dream,4200,0.5,2024-01-01,false\n`;
      const uploaded = await uploadFile(started.server, started.ada.access_token, started.collectionId, {
        path: 't.csv',
        content: more,
      });
      expect(uploaded).toBe(201);
      await upsert(started.server, started.ada.access_token, started.collectionId);
      expect((await preview(started)).version).toBe(1);
      await copies.idle();
      expect(copies.counts).toMatchObject({ built: 2, evicted: 1, failed: 0 });
      expect(copies.size).toBe(1);
      expect(await copyFiles(started.server)).toHaveLength(1);
      // The evicted version is still readable (time travel), and copied again on demand.
      expect(await preview(started, 0)).toEqual(first);
      await copies.idle();
      expect(await preview(started, 0)).toEqual(first);
      expect(copies.counts).toMatchObject({ built: 3, evicted: 2 });
      // And on /metrics.
      const metrics = await fetch(`${started.server.url}/metrics`, { headers: { 'x-internal-key': internalKey } });
      const text = await metrics.text();
      expect(text).toContain('duckdb_native_copies_total{event="built"} 3\n');
      expect(text).toContain('duckdb_native_copies_total{event="evicted"} 2\n');
      expect(text).toMatch(/\nduckdb_native_copies 1\n/);
    } finally {
      await started.server.stop();
      await started.server.database.drop();
    }
  });

  it('leaves small versions and failed copies to the Parquet files', async () => {
    const small = await withDashboard({ SERVICE_DUCKDB_COPY_MIN_ROWS: '121' });
    const broken = await withDashboard({ SERVICE_DUCKDB_COPY_MIN_ROWS: '0' });
    try {
      const expected = withoutOrigins(await preview(small));
      await small.server.context.copies.idle();
      expect(small.server.context.copies.counts).toMatchObject({ built: 0, failed: 0 });
      // Its folder gone, the copy cannot be written: reads go on from Parquet and it is not retried.
      await rm(join(broken.server.context.config.dataDir, 'tmp', 'copies'), { recursive: true, force: true });
      expect(withoutOrigins(await preview(broken))).toEqual(expected);
      await broken.server.context.copies.idle();
      expect(withoutOrigins(await preview(broken))).toEqual(expected);
      await broken.server.context.copies.idle();
      expect(broken.server.context.copies.counts).toMatchObject({ built: 0, failed: 1, reads: 0 });
      expect((await data(broken, FILTER_SETS[1] ?? [])).components.count).toEqual({
        value: expect.any(Number),
        unfiltered_value: 120,
      });
    } finally {
      for (const started of [small, broken]) {
        await started.server.stop();
        await started.server.database.drop();
      }
    }
  });
});
