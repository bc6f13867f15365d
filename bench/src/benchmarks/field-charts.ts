/**
 * `field-charts`: the field's chart kinds (issue 28) on big generated tables, against the real
 * server in a child process (embedded SQLite, local storage), in one run:
 *
 * 1. Manhattan plot of a GWAS of `BENCH_FIELD_VARIANTS` (10 M) variants (field-charts-data.ts): the
 *    first answer, then `BENCH_FIELD_CHANGES` (50) random range filters on `maf`, each streamed as
 *    the web app asks; the baseline, taking turns with it, is DuckDB alone in another process
 *    running back to back the very statements the server ran for that request (dashboard-target.ts).
 *    The answers of the first request and of the first filters are checked: at most 20,000 points,
 *    and every variant below 5e-8 under the filter among them (counted by DuckDB over the file).
 * 2. UpSet plot of 20 sets over `BENCH_FIELD_ITEMS` (1 M) items, the same way (filters on `score`).
 * 3. Clustered heatmap of `BENCH_FIELD_FEATURES` (5,000) features × `BENCH_FIELD_SAMPLES` (200)
 *    samples, clustered on the 1,000 most variable rows (filters on `score`), the same way.
 * 4. Coverage track of `BENCH_FIELD_LENGTH` (30,000) positions × the samples (6 M rows), the same
 *    way (filters: random windows of `position`).
 * 5. In Chromium, a dashboard of one of each new kind over the items (and a Newick tree of their
 *    genera), `BENCH_FIELD_BROWSER_CHANGES` (20) filter changes, each to every component redrawn
 *    (needs `npm run build`; 0 skips it).
 *
 * Targets (field-charts-report.ts): Manhattan p95 < 500 ms and ≤ 1.5× DuckDB; heatmap p95 < 400 ms;
 * coverage and UpSet p95 < 300 ms; browser p95 < 800 ms.
 */
import { access, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import type { DashboardFilter } from '@service/common';
import { type ChildWorker, startWorker } from '../lib/child-worker.js';
import { wholeFromEnv } from '../lib/env.js';
import { printMachine } from '../lib/report.js';
import { UsageError } from '../lib/usage-error.js';
import {
  type BenchCollection,
  createBenchCollection,
  createBenchDashboard,
  uploadAndUpsert,
} from './collection-fixture.js';
import { buildsCopy, copyAttaches } from './copy-statements.js';
import { dataClient } from './dashboard-requests.js';
import type { DashboardTargetMessage, RecordedStatement } from './dashboard-target.js';
import { inBrowser } from './field-charts-browser.js';
import {
  coverageComponents,
  coverageSql,
  GENOME_THRESHOLD,
  generaNewick,
  gwasComponents,
  gwasSql,
  heatmapComponents,
  itemsSql,
  matrixSql,
  rangeWalk,
  upsetComponents,
} from './field-charts-data.js';
import {
  type FieldFigures,
  type Measured,
  type Out,
  POINT_BUDGET,
  partNames,
  printMeasured,
  reportFieldCharts,
} from './field-charts-report.js';
import { closeConnections, requestJson, uploadFile } from './ingest-http.js';

const API_PREFIX = '/service/api/v1';
const TARGET_SCRIPT = fileURLToPath(new URL('./dashboard-target.js', import.meta.url));
const WEB_DIST = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../web/dist');
const UPLOAD_MAX = 4 * 1024 ** 3;
/** Genera of the items table (field-charts-data.ts): the tips of the browser dashboard's tree. */
const GENERA = 2000;
/** Filters whose Manhattan answers are checked against DuckDB's count of significant variants. */
const CHECKED_FILTERS = 5;

type Server = ChildWorker<DashboardTargetMessage>;

export async function writeParquet(path: string, sql: string): Promise<number> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const connection = await instance.connect();
  try {
    await connection.run(sql);
  } finally {
    connection.closeSync();
  }
  return (await stat(path)).size;
}

/** A collection of the Parquet file at `path` (and a Newick `tree.nwk` beside it when given), built. */
export async function tableOf(
  api: string,
  name: string,
  path: string,
  rows: number,
  out: Out,
  tree?: string,
): Promise<BenchCollection> {
  const collection = await createBenchCollection(api, {
    project: `field charts: ${name}`,
    workflow: 'generated',
    tag: name,
    pattern: `${name}\\.parquet${tree === undefined ? '' : '|tree\\.nwk'}`,
    format: 'parquet',
  });
  if (tree !== undefined) {
    const size = (await stat(tree)).size;
    const file = { localPath: tree, size, path: 'tree.nwk', contentType: 'text/plain', run: 'bench' };
    await uploadFile(`${api}/datacollections/${collection.collectionId}/files`, collection.token, file);
  }
  const size = (await stat(path)).size;
  const file = { localPath: path, size, path: `${name}.parquet`, contentType: 'application/octet-stream' };
  const seconds = await uploadAndUpsert(api, collection, file, rows);
  out(
    `  ${name}: ${rows.toLocaleString('en-US')} rows, ${(size / 1024 ** 2).toFixed(0)} MiB, upserted in ${seconds.toFixed(1)} s`,
  );
  return collection;
}

/** The first answer, then each filter change and DuckDB alone on its statements. */
export async function measure(
  server: Server,
  baseline: Server,
  api: string,
  collection: BenchCollection,
  components: { component_id: string }[],
  filters: DashboardFilter[][],
): Promise<Measured> {
  const dashboardId = await createBenchDashboard(api, collection, 'field charts', components);
  closeConnections();
  const ids = components.map((component) => component.component_id);
  const client = dataClient(`${api}/dashboards/${dashboardId}/data`, collection.token, ids);
  const take = async () => {
    const answer = await server.ask({ type: 'take' });
    if (answer.type !== 'statements') throw new Error(`server: unexpected ${answer.type}`);
    return answer.statements;
  };
  const replay = async (statements: RecordedStatement[]) => {
    if (statements.length === 0) return 0;
    const answer = await baseline.ask({ type: 'replay', statements });
    if (answer.type !== 'replayed') throw new Error(`baseline: unexpected ${answer.type}`);
    return answer.ms;
  };
  try {
    const first = await client.ndjson([]);
    if (first.failure !== null) throw new Error(`the first POST /data failed: ${first.failure}`);
    const settled = await server.ask({ type: 'settle' });
    if (settled.type !== 'settled') throw new Error(`server: unexpected ${settled.type}`);
    await replay(copyAttaches(await take()));
    const changeMs: number[] = [];
    const baselineMs: number[] = [];
    for (const change of filters) {
      const timing = await client.ndjson(change);
      if (timing.failure !== null) throw new Error(`POST /data ${JSON.stringify(change)}: ${timing.failure}`);
      const taken = await take();
      await replay(copyAttaches(taken));
      changeMs.push(timing.ms);
      baselineMs.push(await replay(taken.filter((statement) => !buildsCopy(statement))));
    }
    return { dashboardId, firstMs: first.ms, changeMs, baselineMs };
  } finally {
    client.close();
  }
}

/** Every checked answer: at most the point budget, and every significant variant under its filter among its points. */
async function checkManhattan(api: string, token: string, m: Measured, gwas: string, filters: DashboardFilter[][]) {
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const connection = await instance.connect();
  const problems: string[] = [];
  try {
    for (const filter of [[], ...filters.slice(0, CHECKED_FILTERS)]) {
      const range = (filter[0]?.value ?? [0, 1]) as [number, number];
      const reader = await connection.runAndReadAll(
        `SELECT count(*)::INTEGER FROM read_parquet('${gwas}') WHERE p < ${GENOME_THRESHOLD} AND maf >= ${range[0]} AND maf <= ${range[1]}`,
      );
      const expected = Number(reader.getRows()[0]?.[0]);
      const answer = (await requestJson('POST', `${api}/dashboards/${m.dashboardId}/data`, {
        token,
        body: { filters: filter },
      })) as { components: { manhattan: { columns: { name: string }[]; rows: unknown[][]; significant: number } } };
      const { columns, rows, significant } = answer.components.manhattan;
      const y = columns.findIndex((column) => column.name === 'y');
      const drawn = rows.filter((row) => (row[y] as number) < GENOME_THRESHOLD).length;
      if (rows.length > POINT_BUDGET) problems.push(`${JSON.stringify(filter)}: ${rows.length} points sent`);
      if (drawn !== expected || significant !== expected) {
        problems.push(`${JSON.stringify(filter)}: ${expected} significant, ${significant} counted, ${drawn} drawn`);
      }
    }
  } finally {
    connection.closeSync();
  }
  return problems;
}

/** The sizes of one run, from the environment. */
function sizesFromEnv() {
  return {
    variants: wholeFromEnv('BENCH_FIELD_VARIANTS', 10_000_000, 1000),
    items: wholeFromEnv('BENCH_FIELD_ITEMS', 1_000_000, 1000),
    features: wholeFromEnv('BENCH_FIELD_FEATURES', 5000, 10),
    samples: wholeFromEnv('BENCH_FIELD_SAMPLES', 200, 2),
    length: wholeFromEnv('BENCH_FIELD_LENGTH', 30_000, 100),
    changes: wholeFromEnv('BENCH_FIELD_CHANGES', 50, 1),
    browserChanges: wholeFromEnv('BENCH_FIELD_BROWSER_CHANGES', 20, 0),
  };
}
type Sizes = ReturnType<typeof sizesFromEnv>;

/** Writes each table's Parquet file (and the genera's tree) into `dir`; answers their paths. */
async function writeTables(dir: string, sizes: Sizes, out: Out) {
  const paths = {
    gwas: join(dir, 'gwas.parquet'),
    items: join(dir, 'items.parquet'),
    matrix: join(dir, 'matrix.parquet'),
    coverage: join(dir, 'coverage.parquet'),
    tree: join(dir, 'tree.nwk'),
  };
  out('generating the tables with DuckDB ...');
  await writeParquet(paths.gwas, gwasSql(paths.gwas, sizes.variants));
  await writeParquet(paths.items, itemsSql(paths.items, sizes.items));
  await writeParquet(paths.matrix, matrixSql(paths.matrix, sizes.features, sizes.samples));
  await writeParquet(paths.coverage, coverageSql(paths.coverage, sizes.length, sizes.samples));
  await writeFile(paths.tree, generaNewick(GENERA));
  return paths;
}

/** Every part measured against the running server and its DuckDB baseline. */
async function measureAll(
  server: Server,
  baseline: Server,
  paths: Awaited<ReturnType<typeof writeTables>>,
  sizes: Sizes,
  out: Out,
): Promise<FieldFigures> {
  const api = `${server.url}${API_PREFIX}`;
  const gwasTable = await tableOf(api, 'gwas', paths.gwas, sizes.variants, out);
  const itemsTable = await tableOf(api, 'items', paths.items, sizes.items, out, paths.tree);
  const matrixTable = await tableOf(api, 'matrix', paths.matrix, sizes.features, out);
  const coverageTable = await tableOf(api, 'coverage', paths.coverage, sizes.length * sizes.samples, out);
  const walk = (id: string, min: number, max: number, seed: number) =>
    Array.from({ length: sizes.changes }, rangeWalk(id, min, max, seed));
  const mafFilters = walk('maf', 0.01, 0.5, 7);
  const names = partNames(sizes);
  const manhattan = await measure(server, baseline, api, gwasTable, gwasComponents(), mafFilters);
  printMeasured(out, names.manhattan, manhattan);
  const problems = await checkManhattan(api, gwasTable.token, manhattan, paths.gwas, mafFilters);
  const upset = await measure(server, baseline, api, itemsTable, upsetComponents(), walk('score', 0, 1, 11));
  printMeasured(out, names.upset, upset);
  const heatmap = await measure(
    server,
    baseline,
    api,
    matrixTable,
    heatmapComponents(sizes.samples),
    walk('score', 0, 1, 13),
  );
  printMeasured(out, names.heatmap, heatmap);
  const coverage = await measure(
    server,
    baseline,
    api,
    coverageTable,
    coverageComponents(),
    walk('position', 1, sizes.length, 17),
  );
  printMeasured(out, names.coverage, coverage);
  const browser = sizes.browserChanges > 0 ? await inBrowser(server, itemsTable, api, sizes.browserChanges) : null;
  return { manhattan, problems, upset, heatmap, coverage, browser };
}

export async function run(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`takes no arguments (got "${args.join(' ')}")`);
  const sizes = sizesFromEnv();
  if (sizes.browserChanges > 0) {
    await access(join(WEB_DIST, 'index.html')).catch(() => {
      throw new UsageError(
        `${WEB_DIST}/index.html is missing: run \`npm run build\` first (or BENCH_FIELD_BROWSER_CHANGES=0)`,
      );
    });
  }
  const out: Out = (line = '') => process.stdout.write(`${line}\n`);
  out(`field-charts benchmark, ${new Date().toISOString()}`);
  await printMachine(out);
  const dir = join(tmpdir(), `service-bench-field-${process.pid}`);
  await mkdir(dir, { recursive: true });
  try {
    const paths = await writeTables(dir, sizes, out);
    const serverArgs = ['service', join(dir, 'service'), String(UPLOAD_MAX)];
    const server = await startWorker<DashboardTargetMessage>(
      TARGET_SCRIPT,
      sizes.browserChanges > 0 ? [...serverArgs, WEB_DIST] : serverArgs,
    );
    const baseline = await startWorker<DashboardTargetMessage>(TARGET_SCRIPT, ['baseline', join(dir, 'baseline')]);
    try {
      reportFieldCharts(out, await measureAll(server, baseline, paths, sizes, out));
    } finally {
      await baseline.stop();
      await server.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
