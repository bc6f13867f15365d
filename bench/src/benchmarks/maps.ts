/**
 * `maps`: the map figures (issue 29) on a generated table of `BENCH_MAPS_ROWS` (1 M) sites, against
 * the real server in a child process (embedded SQLite, local storage), as `field-charts` measures:
 *
 * 1. A point map of the 1 M sites (a density grid: far over its 5,000-point budget): the first
 *    answer, then `BENCH_MAPS_CHANGES` (50) random range filters on `score`, each streamed as the
 *    web app asks; the baseline, taking turns with it, is DuckDB alone in another process running
 *    back to back the very statements the server ran for that request (dashboard-target.ts). The
 *    answers of the first request and of the first filters are checked: their cells count every
 *    site on the map under the filter (counted by DuckDB over the file), in no more cells than the budget.
 * 2. A choropleth of the 1 M sites' country codes (alpha-3, alpha-2, numeric and names mixed, 1 % unknown),
 *    the same way.
 *
 * Targets: each p95 < 500 ms; the ratios to DuckDB alone are printed.
 */
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import type { DashboardFilter } from '@service/common';
import { startWorker } from '../lib/child-worker.js';
import { wholeFromEnv } from '../lib/env.js';
import { printMachine, printVerdicts } from '../lib/report.js';
import { percentile } from '../lib/stats.js';
import { UsageError } from '../lib/usage-error.js';
import type { DashboardTargetMessage } from './dashboard-target.js';
import { measure, tableOf, writeParquet } from './field-charts.js';
import { rangeWalk } from './field-charts-data.js';
import { type Measured, type Out, printMeasured } from './field-charts-report.js';
import { requestJson } from './ingest-http.js';

const API_PREFIX = '/service/api/v1';
const TARGET_SCRIPT = fileURLToPath(new URL('./dashboard-target.js', import.meta.url));
const UPLOAD_MAX = 4 * 1024 ** 3;
/** The point map's budget (the figure's default): beyond it, the density grid has at most this many cells. */
const POINT_BUDGET = 5000;
/** Filters whose density answers are checked against DuckDB's count of sites on the map. */
const CHECKED_FILTERS = 5;

/** Codes of 40 countries, written four ways (alpha-3, alpha-2, numeric, name), and an unknown one. */
const CODES = [
  ['FRA', 'FR', '250', 'France'],
  ['USA', 'US', '840', 'United States'],
  ['BRA', 'BR', '76', 'Brazil'],
  ['JPN', 'JP', '392', 'Japan'],
  ['AUS', 'AU', '36', 'Australia'],
  ['IND', 'IN', '356', 'India'],
  ['ZAF', 'ZA', '710', 'South Africa'],
  ['CAN', 'CA', '124', 'Canada'],
  ['DEU', 'DE', '276', 'Germany'],
  ['KEN', 'KE', '404', 'Kenya'],
].flat();

const uniform = (salt: number) => `((hash(i, ${salt}) % 1000000007) / 1000000007.0)`;

/**
 * 1 M sites: half in 200 clusters (cities), half spread over the inhabited latitudes, one in 1,000
 * at latitude 95 (off the map); a country code, reads and a score.
 */
function sitesSql(path: string, rows: number): string {
  const codes = `[${CODES.map((code) => `'${code}'`).join(', ')}]`;
  return `COPY (
  SELECT
    CASE WHEN i % 1000 = 1 THEN 95 WHEN i % 2 = 0 THEN -50 + 110 * ((hash(i % 200, 1) % 1000) / 1000.0) + ${uniform(2)} - 0.5
      ELSE -55 + 125 * ${uniform(3)} END AS lat,
    CASE WHEN i % 2 = 0 THEN -170 + 340 * ((hash(i % 200, 4) % 1000) / 1000.0) + ${uniform(5)} - 0.5
      ELSE -180 + 360 * ${uniform(6)} END AS lon,
    CASE WHEN i % 100 = 0 THEN 'XX' ELSE list_extract(${codes}, CAST(hash(i, 7) % ${CODES.length} AS INTEGER) + 1) END AS country,
    CAST(floor(1000 * ${uniform(8)}) AS INTEGER) AS reads,
    ${uniform(9)} AS score
  FROM range(${rows}) AS numbers(i)
) TO '${path.replaceAll("'", "''")}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)`;
}

const range = { component_id: 'score', type: 'interactive', widget: 'range', column: 'score' };
const pointMap = () => [
  { component_id: 'points', type: 'figure', title: 'points', chart: 'point_map', latitude: 'lat', longitude: 'lon' },
  range,
];
const choropleth = () => [
  {
    component_id: 'countries',
    type: 'figure',
    title: 'countries',
    chart: 'choropleth',
    region: 'country',
    agg: 'sum',
    y: 'reads',
  },
  range,
];

/** Every checked density answer: its cells count every site on the map under its filter, in at most the budget's cells. */
async function checkDensity(api: string, token: string, m: Measured, path: string, filters: DashboardFilter[][]) {
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const connection = await instance.connect();
  const problems: string[] = [];
  try {
    for (const filter of [[], ...filters.slice(0, CHECKED_FILTERS)]) {
      const [low, high] = (filter[0]?.value ?? [0, 1]) as [number, number];
      const reader = await connection.runAndReadAll(
        `SELECT count(*)::INTEGER FROM read_parquet('${path}') WHERE abs(lat) <= 90 AND abs(lon) <= 180 ` +
          `AND score >= ${low} AND score <= ${high}`,
      );
      const expected = Number(reader.getRows()[0]?.[0]);
      const answer = (await requestJson('POST', `${api}/dashboards/${m.dashboardId}/data`, {
        token,
        body: { filters: filter },
      })) as { components: { points: { columns: { name: string }[]; rows: unknown[][] } } };
      const { columns, rows } = answer.components.points;
      const n = columns.findIndex((column) => column.name === 'n');
      const counted = rows.reduce((sum, row) => sum + Number(row[n]), 0);
      if (rows.length > POINT_BUDGET) problems.push(`${JSON.stringify(filter)}: ${rows.length} cells sent`);
      if (counted !== expected) problems.push(`${JSON.stringify(filter)}: ${expected} sites, ${counted} counted`);
    }
  } finally {
    connection.closeSync();
  }
  return problems;
}

export async function run(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`takes no arguments (got "${args.join(' ')}")`);
  const rows = wholeFromEnv('BENCH_MAPS_ROWS', 1_000_000, 10_000);
  const changes = wholeFromEnv('BENCH_MAPS_CHANGES', 50, 1);
  const out: Out = (line = '') => process.stdout.write(`${line}\n`);
  out(`maps benchmark, ${new Date().toISOString()}`);
  await printMachine(out);
  const dir = join(tmpdir(), `service-bench-maps-${process.pid}`);
  await mkdir(dir, { recursive: true });
  try {
    const path = join(dir, 'sites.parquet');
    out('generating the sites with DuckDB ...');
    await writeParquet(path, sitesSql(path, rows));
    const server = await startWorker<DashboardTargetMessage>(TARGET_SCRIPT, [
      'service',
      join(dir, 'service'),
      String(UPLOAD_MAX),
    ]);
    const baseline = await startWorker<DashboardTargetMessage>(TARGET_SCRIPT, ['baseline', join(dir, 'baseline')]);
    try {
      const api = `${server.url}${API_PREFIX}`;
      const sites = await tableOf(api, 'sites', path, rows, out);
      const walk = (seed: number) => Array.from({ length: changes }, rangeWalk('score', 0, 1, seed));
      const count = rows.toLocaleString('en-US');
      const pointFilters = walk(29);
      const points = await measure(server, baseline, api, sites, pointMap(), pointFilters);
      const pointRatio = printMeasured(out, `point map (density), ${count} sites`, points);
      const problems = await checkDensity(api, sites.token, points, path, pointFilters);
      const countries = await measure(server, baseline, api, sites, choropleth(), walk(31));
      const countryRatio = printMeasured(out, `choropleth, ${count} rows of mixed codes`, countries);
      const p95 = (m: Measured) => percentile(m.changeMs, 0.95);
      out();
      out(
        `point map: every site on the map counted, ≤ ${POINT_BUDGET} cells: ${problems.length === 0 ? 'yes' : problems.join('; ')}`,
      );
      out();
      printVerdicts(out, [
        [p95(points) < 500, `point map p95 ${p95(points).toFixed(1)} ms < 500 ms (${pointRatio.toFixed(2)}x DuckDB)`],
        [
          p95(countries) < 500,
          `choropleth p95 ${p95(countries).toFixed(1)} ms < 500 ms (${countryRatio.toFixed(2)}x DuckDB)`,
        ],
        [problems.length === 0, 'point map: every site on the map counted in at most the budget of cells'],
      ]);
    } finally {
      await baseline.stop();
      await server.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
