/**
 * `ingest`: a generated CSV (10 million rows, about 1 GB; `BENCH_INGEST_ROWS` for fewer) taken
 * into a new data collection the way a user does it, against DuckDB's own CSV-to-Parquet copy of
 * the same file in the same run; then a group-by aggregate over those rows through the API.
 *
 * 1. **baseline**: in a child process, the server's DuckDB (same settings: 2 threads) runs
 *    `COPY (SELECT * FROM read_csv('<file>')) TO '<tmp>.parquet' (FORMAT parquet)`, and, as a
 *    reference for the aggregate, the same group-by straight over the Parquet it wrote.
 * 2. **service**: the real server in another child process (embedded SQLite and local storage in
 *    a temp dir). The file is uploaded through `POST /datacollections/{id}/files` (streamed
 *    multipart, timed on its own), then `POST /deltatables/upsert` builds the table (timed: this is
 *    what is compared with the baseline). The server's peak resident memory is read from /proc.
 * 3. **aggregate**: `POST /datacollections/{id}/aggregate` grouping by `group` with count, sum and
 *    mean of `value`: 2 warm-ups, then 20 timed requests one after another.
 *
 * Generating the file is timed and printed, but is no part of any ratio.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CpuSpan, printMachine, printVerdicts } from '../lib/report.js';
import { median, percentile } from '../lib/stats.js';
import { formatTable } from '../lib/table.js';
import { UsageError } from '../lib/usage-error.js';
import { generateCsv } from './ingest-data.js';
import {
  AGGREGATE_RUNS,
  COLLECTION_FILE,
  measureBaseline,
  measureService,
  type Round,
  WARMUPS,
} from './ingest-service.js';

const DEFAULT_ROWS = 10_000_000;
const MIB = 1024 ** 2;
const GIB = 1024 ** 3;

const TARGET_RATIO = 0.8;
const TARGET_PEAK_RSS = GIB;
const TARGET_P50_MS = 300;

function rowsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BENCH_INGEST_ROWS;
  if (raw === undefined || raw.trim() === '') return DEFAULT_ROWS;
  const rows = Number(raw.replaceAll('_', ''));
  if (!Number.isSafeInteger(rows) || rows < 1000) {
    throw new UsageError(`BENCH_INGEST_ROWS must be a whole number of rows >= 1000 (got "${raw}")`);
  }
  return rows;
}

const fixed = (value: number, digits: number) => value.toFixed(digits);
const mib = (bytes: number | null) => (bytes === null ? '?' : fixed(bytes / MIB, 0));
const grouped = (value: number) => value.toLocaleString('en-US').replaceAll(',', ' ');

function roundsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BENCH_INGEST_ROUNDS;
  if (raw === undefined || raw.trim() === '') return 3;
  const rounds = Number(raw);
  if (!Number.isInteger(rounds) || rounds < 1) {
    throw new UsageError(`BENCH_INGEST_ROUNDS must be a whole number >= 1 (got "${raw}")`);
  }
  return rounds;
}

type Out = (line?: string) => void;
type Baseline = Awaited<ReturnType<typeof measureBaseline>>;
type Service = Awaited<ReturnType<typeof measureService>>;

export async function run(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`takes no arguments (got "${args.join(' ')}")`);
  const rows = rowsFromEnv();
  const roundCount = roundsFromEnv();
  const out: Out = (line = '') => process.stdout.write(`${line}\n`);
  await printHeader(out, rows);

  const workDir = await mkdtemp(join(tmpdir(), 'service-bench-ingest-'));
  try {
    const csvPath = join(workDir, COLLECTION_FILE);
    out(`generating ${csvPath} ...`);
    const generated = await generateCsv(csvPath, rows);
    out(
      `  ${grouped(generated.rows)} rows, ${fixed(generated.bytes / MIB, 0)} MiB in ${fixed(generated.seconds, 1)} s ` +
        '(not part of any figure below)',
    );
    const csv = { path: csvPath, bytes: generated.bytes, rows };

    const span = new CpuSpan();
    const counted = { childCpu: 0 };
    const baseline = await measureFirstBaseline(out, workDir, csvPath, rows, counted);
    out('service: real server, embedded SQLite and local storage in a temp dir ...');
    const rebaseline = () => measureRoundBaseline(workDir, csvPath, counted);
    const service = await measureService(join(workDir, 'service'), csv, counted, roundCount - 1, rebaseline);
    span.end();

    reportSteps(out, baseline, service, generated.bytes, rows);
    reportAggregates(out, baseline, service);
    const rounds = reportRounds(out, baseline, service);
    span.print(out, counted.childCpu, cpus().length);
    printVerdicts(out, verdicts(rounds, service));
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

async function printHeader(out: Out, rows: number): Promise<void> {
  out(`ingest benchmark, ${new Date().toISOString()}`);
  out(`rows: ${grouped(rows)}${rows === DEFAULT_ROWS ? '' : ' (BENCH_INGEST_ROWS)'}`);
  out("baseline and server each run alone in a child process; both use the server's DuckDB settings (2 threads)");
  await printMachine(out);
  out();
}

/** The first round's baseline, with the aggregate runs over its Parquet: DuckDB COPY read_csv -> Parquet. */
async function measureFirstBaseline(
  out: Out,
  workDir: string,
  csvPath: string,
  rows: number,
  counted: { childCpu: number },
): Promise<Baseline> {
  out('baseline: DuckDB COPY read_csv -> Parquet ...');
  const baselineDir = join(workDir, 'baseline');
  const baseline = await measureBaseline(baselineDir, csvPath, join(workDir, 'baseline.parquet'), AGGREGATE_RUNS);
  counted.childCpu += baseline.copyCpuSeconds;
  if (baseline.rows !== rows) throw new Error(`baseline: the Parquet file has ${baseline.rows} rows, not ${rows}`);
  await rm(join(workDir, 'baseline.parquet'), { force: true });
  await rm(baselineDir, { recursive: true, force: true });
  return baseline;
}

/** The baseline again, taking turns with a later round's upsert. */
async function measureRoundBaseline(workDir: string, csvPath: string, counted: { childCpu: number }) {
  const baselineDir = join(workDir, 'baseline');
  const parquet = join(workDir, 'baseline.parquet');
  try {
    const report = await measureBaseline(baselineDir, csvPath, parquet, 0);
    counted.childCpu += report.copyCpuSeconds;
    return report;
  } finally {
    await rm(parquet, { force: true });
    await rm(baselineDir, { recursive: true, force: true });
  }
}

/** The first round's steps (baseline, upload, upsert) with their speed, CPU and memory. */
function reportSteps(out: Out, baseline: Baseline, service: Service, bytes: number, rows: number): void {
  const mbPerSecond = (seconds: number) => fixed(bytes / MIB / seconds, 0);
  const rowsPerSecond = (seconds: number) => grouped(Math.round(rows / seconds));
  const cores = (cpuSeconds: number | null, seconds: number) =>
    cpuSeconds === null ? '?' : fixed(cpuSeconds / seconds, 2);
  out();
  out(
    formatTable(
      ['step', 'seconds', 'MiB/s', 'rows/s', 'CPU-s', 'cores busy', 'peak RSS MiB'],
      [
        [
          'baseline: DuckDB COPY read_csv -> Parquet',
          fixed(baseline.copySeconds, 2),
          mbPerSecond(baseline.copySeconds),
          rowsPerSecond(baseline.copySeconds),
          fixed(baseline.copyCpuSeconds, 1),
          cores(baseline.copyCpuSeconds, baseline.copySeconds),
          mib(baseline.copyPeakRssBytes),
        ],
        [
          'upload: POST /datacollections/{id}/files',
          fixed(service.upload.seconds, 2),
          mbPerSecond(service.upload.seconds),
          rowsPerSecond(service.upload.seconds),
          service.upload.cpuSeconds === null ? '?' : fixed(service.upload.cpuSeconds, 1),
          cores(service.upload.cpuSeconds, service.upload.seconds),
          mib(service.upload.peakBytes),
        ],
        [
          'upsert: POST /deltatables/upsert',
          fixed(service.upsert.seconds, 2),
          mbPerSecond(service.upsert.seconds),
          rowsPerSecond(service.upsert.seconds),
          service.upsert.cpuSeconds === null ? '?' : fixed(service.upsert.cpuSeconds, 1),
          cores(service.upsert.cpuSeconds, service.upsert.seconds),
          mib(service.upsert.peakBytes),
        ],
      ],
    ),
  );
  out(`(server process at start-up, before the upload: peak ${mib(service.startupPeakBytes)} MiB;`);
  out(' baseline peak RSS is its whole process, Node + DuckDB, up to the end of the COPY;');
  out(` the baseline wrote ${fixed(baseline.parquetBytes / MIB, 0)} MiB of Parquet)`);
  out(`server RSS during the upsert, MiB at each tenth of its time: ${service.upsert.rssTenths.map(mib).join(' ')}`);
  out(`server RSS during the upload, MiB at each tenth of its time: ${service.upload.rssTenths.map(mib).join(' ')}`);
  out();
}

function reportAggregates(out: Out, baseline: Baseline, service: Service): void {
  const latencyRow = (name: string, values: number[]) => [
    name,
    fixed(percentile(values, 0.5), 0),
    fixed(percentile(values, 0.99), 0),
    fixed(Math.min(...values), 0),
  ];
  out(
    formatTable(
      ['aggregate (group by `group`: count, sum, mean of `value`)', 'p50 ms', 'p99 ms', 'min ms'],
      [
        latencyRow('DuckDB alone over the baseline Parquet (reference)', baseline.aggregateMs),
        latencyRow('POST /datacollections/{id}/aggregate', service.aggregateMs),
      ],
    ),
  );
  out(
    `(${AGGREGATE_RUNS} sequential requests after ${WARMUPS} warm-ups on one keep-alive connection; ` +
      `server peak RSS while aggregating ${mib(service.aggregate.peakBytes)} MiB)`,
  );
  out();
}

/** Each round's upsert against its baseline; answers the rounds. */
function reportRounds(out: Out, baseline: Baseline, service: Service): Round[] {
  const rounds: Round[] = [
    {
      baselineSeconds: baseline.copySeconds,
      baselineCpuSeconds: baseline.copyCpuSeconds,
      upsertSeconds: service.upsert.seconds,
      upsertCpuSeconds: service.upsert.cpuSeconds,
    },
    ...service.rounds,
  ];
  out(
    formatTable(
      ['round', 'baseline s', 'upsert s', 'x baseline', 'baseline CPU-s', 'upsert CPU-s', 'x baseline by CPU'],
      rounds.map((round, index) => [
        index === 0 ? '1 (new table)' : `${index + 1} (overwrite)`,
        fixed(round.baselineSeconds, 2),
        fixed(round.upsertSeconds, 2),
        fixed(round.baselineSeconds / round.upsertSeconds, 2),
        fixed(round.baselineCpuSeconds, 1),
        round.upsertCpuSeconds === null ? '?' : fixed(round.upsertCpuSeconds, 1),
        round.upsertCpuSeconds === null ? '?' : fixed(round.baselineCpuSeconds / round.upsertCpuSeconds, 2),
      ]),
    ),
  );
  out();

  return rounds;
}

function verdicts(rounds: Round[], service: Service): [boolean, string][] {
  const ratio = median(rounds.map((round) => round.baselineSeconds / round.upsertSeconds));
  // The same ratio from CPU time, which other processes competing for the two cores disturb less.
  const cpuRatios = rounds.flatMap((round) =>
    round.upsertCpuSeconds === null ? [] : [round.baselineCpuSeconds / round.upsertCpuSeconds],
  );
  const cpuRatio = cpuRatios.length === 0 ? '?' : `${fixed(median(cpuRatios), 2)}x`;
  const peaks = [
    service.startupPeakBytes,
    service.upload.peakBytes,
    service.upsert.peakBytes,
    service.aggregate.peakBytes,
  ];
  const known = peaks.filter((peak): peak is number => peak !== null);
  const peak = known.length === 0 ? null : Math.max(...known);
  const p50 = percentile(service.aggregateMs, 0.5);
  return [
    [
      ratio >= TARGET_RATIO,
      `upsert >= ${fixed(TARGET_RATIO, 2)}x the DuckDB COPY baseline: ${fixed(ratio, 2)}x ` +
        `(median of ${rounds.length} rounds; by CPU time ${cpuRatio})`,
    ],
    [
      peak !== null && peak < TARGET_PEAK_RSS,
      `server peak RSS < ${mib(TARGET_PEAK_RSS)} MiB (1 GiB): ${mib(peak)} MiB`,
    ],
    [p50 < TARGET_P50_MS, `aggregate p50 < ${TARGET_P50_MS} ms: ${fixed(p50, 0)} ms`],
  ];
}
