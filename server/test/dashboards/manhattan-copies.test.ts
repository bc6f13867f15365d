import type { DashboardFilter } from '@service/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  call,
  describeEachDialect,
  type Session,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, serverWithPeople, upsert } from './analytics-table.js';

/**
 * A Manhattan plot reads, once built, a copy of the version holding each row's cell of its grid
 * (analytics/components/manhattan-cells.ts). Here every version gets copies
 * (`SERVICE_DUCKDB_COPY_MIN_ROWS=0`), and a second server with copies off computes the same
 * dashboard from the rows themselves: both must answer exactly the same, filtered or not, thinned
 * or not, and again after a new version of the table.
 */

/**
 * A GWAS-like table: chromosome names written two ways, unknown and empty; negative positions;
 * significant rows, some identical; p values tied within a cell, 0, 1, missing and above 1. A
 * later `version` has other p values and the same layout (so only the version tells its copies apart).
 */
function gwasCsv(version: number): string {
  const names = ['chr1', '1', '2', 'X', 'chrM', 'Un_gl1', ''];
  const lines = Array.from({ length: 1500 }, (_, i) => {
    const chromosome = names[i % names.length];
    const position = i % 97 === 0 ? -5 : ((i * 7919) % 5000) + 1;
    const p =
      i % 50 === 0
        ? 1e-9 / (1 + (i % 7))
        : i % 11 === 0
          ? 0.5
          : i % 101 === 0
            ? [0, 1, '', 1.5][i % 4]
            : (((i * 104729 + version * 7) % 1000) + 1) / 1001;
    return `${chromosome},${position},${p},${((i * 37) % 500) / 1000}`;
  });
  return ['chrom,pos,p,maf', ...lines, lines[0], lines[50], ''].join('\n');
}

const manhattan = { type: 'figure', chart: 'manhattan', chromosome: 'chrom', position: 'pos', y: 'p' };
const COMPONENTS = [
  { ...manhattan, component_id: 'thinned', max_points: 200 },
  { ...manhattan, component_id: 'all', threshold: 1e-3 },
  { component_id: 'maf', type: 'interactive', widget: 'range', column: 'maf' },
  { component_id: 'chrom', type: 'interactive', widget: 'multiselect', column: 'chrom' },
];
const FILTER_SETS: DashboardFilter[][] = [
  [],
  [{ component_id: 'maf', value: [0.1, 0.3] }],
  [{ component_id: 'maf', value: [0.45, 0.5] }],
  [
    { component_id: 'maf', value: [0.05, 0.4] },
    { component_id: 'chrom', value: ['2', 'X', 'Un_gl1'] },
  ],
  [{ component_id: 'maf', value: [0.6, 0.7] }],
];

interface Started {
  server: TestServer;
  ada: Session;
  dashboardId: string;
  collectionId: string;
}

async function withDashboard(dialect: 'sqlite' | 'postgres', env: Record<string, string>): Promise<Started> {
  const { server, session } = await serverWithPeople(dialect, env);
  const ada = await session('ada@example.org');
  const table = await projectWithTable(server, ada.access_token, 'GWAS', gwasCsv(0));
  const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
    token: ada.access_token,
    json: {
      project_id: table.projectId,
      title: 'Manhattan',
      components: COMPONENTS.map((component) => ({ ...component, data_collection_id: table.collectionId })),
    },
  });
  if (created.status !== 201) throw new Error(created.text);
  return { server, ada, dashboardId: created.body.dashboard_id, collectionId: table.collectionId };
}

/** The two plots' answers under `filters`. */
async function plots(started: Started, filters: DashboardFilter[]) {
  const answer = await call<DataAnswer>(started.server, 'POST', `/dashboards/${started.dashboardId}/data`, {
    token: started.ada.access_token,
    json: { filters },
  });
  if (answer.status !== 200) throw new Error(answer.text);
  const { thinned, all } = answer.body.components;
  return { thinned, all };
}

/** Copies holding cells (one per plot and version, until evicted). */
async function cellCopies(started: Started): Promise<number> {
  return started.server.context.duckdb.withConnection(async (connection) => {
    const [row] = await connection.query(
      'SELECT count(*)::INTEGER AS "n" FROM duckdb_columns() WHERE column_name = \'__manhattan_rank\'',
    );
    return Number(row?.n);
  });
}

describeEachDialect('Manhattan plots from the copies holding their cells', (dialect) => {
  let direct: Started;
  let copied: Started;

  beforeAll(async () => {
    direct = await withDashboard(dialect, { SERVICE_DUCKDB_COPIES: '0' });
    copied = await withDashboard(dialect, { SERVICE_DUCKDB_COPY_MIN_ROWS: '0' });
  });
  afterAll(async () => {
    for (const started of [direct, copied]) {
      await started?.server.stop();
      await started?.server.database.drop();
    }
  });

  /** Every filter set answered alike by both servers, the copies built first. */
  async function expectSameAnswers() {
    const copies = copied.server.context.copies;
    await plots(copied, []);
    await copies.idle();
    expect(await cellCopies(copied)).toBeGreaterThanOrEqual(2);
    const reads = copies.counts.reads;
    for (const filters of FILTER_SETS) {
      const [expected, fromCopy] = [await plots(direct, filters), await plots(copied, filters)];
      expect(fromCopy, JSON.stringify(filters)).toEqual(expected);
    }
    // Each request read the two plots' copies (and the table's copy for the rest).
    expect(copies.counts.reads - reads).toBeGreaterThanOrEqual(3 * FILTER_SETS.length);
    expect(copies.counts.failed).toBe(0);
  }

  it('answers as the rows themselves do, filtered or not, thinned or not', async () => {
    const unfiltered = await plots(direct, []);
    expect(unfiltered.thinned).toMatchObject({ sampled: true });
    // Not thinned, with cells of several rows: the rows themselves are read, from the copy too.
    expect(unfiltered.all).toMatchObject({ sampled: false });
    await expectSameAnswers();
  });

  it('never serves a copy of an earlier version', async () => {
    const before = await plots(direct, []);
    for (const started of [direct, copied]) {
      const token = started.ada.access_token;
      const uploaded = await uploadFile(started.server, token, started.collectionId, {
        path: 't.csv',
        content: gwasCsv(1),
      });
      expect(uploaded).toBe(201);
      await upsert(started.server, token, started.collectionId);
    }
    const after = await plots(direct, []);
    expect(after).not.toEqual(before);
    // Read before its copies are built (from the rows), then from them.
    expect(await plots(copied, [])).toEqual(after);
    await expectSameAnswers();
  });
});
