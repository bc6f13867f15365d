import type { DashboardFilter } from '@service/common';
import { expect } from 'vitest';
import { call, type Session, type TestServer, uploadFile } from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, serverWithPeople, upsert } from './analytics-table.js';

/**
 * For the tests of plots that read copies of their own (Manhattan, volcano, MA: a version's rows
 * with per-row values computed once): the same dashboard on a server with copies off and on one
 * where every version gets them, and the check that both answer exactly alike.
 */

/** A dashboard over one table, on one server. */
export interface PlotDashboard {
  server: TestServer;
  ada: Session;
  dashboardId: string;
  collectionId: string;
}

/** What the dashboards are made of: the table (`csv(version)`), the components, and those compared. */
export interface PlotCase {
  title: string;
  csv: (version: number) => string;
  components: readonly Record<string, unknown>[];
  /** The components whose answers are compared. */
  plots: readonly string[];
}

export async function plotDashboard(
  dialect: 'sqlite' | 'postgres',
  env: Record<string, string>,
  plotCase: PlotCase,
): Promise<PlotDashboard> {
  const { server, session } = await serverWithPeople(dialect, env);
  const ada = await session('ada@example.org');
  const table = await projectWithTable(server, ada.access_token, plotCase.title, plotCase.csv(0));
  const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
    token: ada.access_token,
    json: {
      project_id: table.projectId,
      title: plotCase.title,
      components: plotCase.components.map((component) => ({ ...component, data_collection_id: table.collectionId })),
    },
  });
  if (created.status !== 201) throw new Error(created.text);
  return { server, ada, dashboardId: created.body.dashboard_id, collectionId: table.collectionId };
}

/** The compared components' answers under `filters`. */
export async function plotAnswers(started: PlotDashboard, plotCase: PlotCase, filters: DashboardFilter[]) {
  const answer = await call<DataAnswer>(started.server, 'POST', `/dashboards/${started.dashboardId}/data`, {
    token: started.ada.access_token,
    json: { filters },
  });
  if (answer.status !== 200) throw new Error(answer.text);
  return Object.fromEntries(plotCase.plots.map((id) => [id, answer.body.components[id]]));
}

/** The tables of the server's DuckDB that have a column `column` (a kind of copy's own column). */
export async function copiesWith(started: PlotDashboard, column: string): Promise<number> {
  return started.server.context.duckdb.withConnection(async (connection) => {
    const [row] = await connection.query(
      'SELECT count(*)::INTEGER AS "n" FROM duckdb_columns() WHERE column_name = $1',
      [column],
    );
    return Number(row?.n);
  });
}

/**
 * Every filter set answered alike by both servers, `copied`'s copies built first (at least
 * `copies` with `column`); each request read them (and the table's copy for the rest).
 */
export async function expectSameAnswers(
  servers: { direct: PlotDashboard; copied: PlotDashboard },
  plotCase: PlotCase,
  filterSets: readonly DashboardFilter[][],
  built: { column: string; copies: number },
) {
  const { direct, copied } = servers;
  const copies = copied.server.context.copies;
  await plotAnswers(copied, plotCase, []);
  await copies.idle();
  expect(await copiesWith(copied, built.column)).toBeGreaterThanOrEqual(built.copies);
  const reads = copies.counts.reads;
  for (const filters of filterSets) {
    const [expected, fromCopy] = [
      await plotAnswers(direct, plotCase, filters),
      await plotAnswers(copied, plotCase, filters),
    ];
    expect(fromCopy, JSON.stringify(filters)).toEqual(expected);
  }
  expect(copies.counts.reads - reads).toBeGreaterThanOrEqual((built.copies + 1) * filterSets.length);
  expect(copies.counts.failed).toBe(0);
}

/** Both servers' table written again, as version 1 of `csv`. */
export async function writeNextVersion(servers: readonly PlotDashboard[], plotCase: PlotCase) {
  for (const started of servers) {
    const token = started.ada.access_token;
    const uploaded = await uploadFile(started.server, token, started.collectionId, {
      path: 't.csv',
      content: plotCase.csv(1),
    });
    expect(uploaded).toBe(201);
    await upsert(started.server, token, started.collectionId);
  }
}
