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
import { fileURLToPath } from 'node:url';
import { childReport, type RunningTarget, startTarget } from '../lib/child-target.js';
import { processCpuSeconds } from '../lib/machine.js';
import { CpuSpan, printMachine, printVerdicts } from '../lib/report.js';
import { median, percentile } from '../lib/stats.js';
import { formatTable } from '../lib/table.js';
import { UsageError } from '../lib/usage-error.js';
import { createBenchCollection, field } from './collection-fixture.js';
import { GROUPS, generateCsv } from './ingest-data.js';
import { closeConnections, requestJson, uploadFile } from './ingest-http.js';
import { peakResidentBytes, resetPeak, sampleResident, tenths } from './ingest-memory.js';
import type { BaselineReport } from './ingest-target.js';

// Kept literal rather than imported so this process never loads the server (only the children do).
const API_PREFIX = '/service/api/v1';
const TARGET_SCRIPT = fileURLToPath(new URL('./ingest-target.js', import.meta.url));

const DEFAULT_ROWS = 10_000_000;
const WARMUPS = 2;
const AGGREGATE_RUNS = 20;
/** The server's default upload cap (SERVICE_UPLOAD_MAX_BYTES); raised only when the file is bigger. */
const DEFAULT_UPLOAD_MAX = 1024 ** 3;
const MIB = 1024 ** 2;
const GIB = 1024 ** 3;

const TARGET_RATIO = 0.8;
const TARGET_PEAK_RSS = GIB;
const TARGET_P50_MS = 300;

const COLLECTION_FILE = 'ingest.csv';
const AGGREGATE_REQUEST = {
  group_by: ['group'],
  aggregates: [
    { column: 'value', fn: 'count' },
    { column: 'value', fn: 'sum' },
    { column: 'value', fn: 'mean' },
  ],
};

function rowsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BENCH_INGEST_ROWS;
  if (raw === undefined || raw.trim() === '') return DEFAULT_ROWS;
  const rows = Number(raw.replaceAll('_', ''));
  if (!Number.isSafeInteger(rows) || rows < 1000) {
    throw new UsageError(`BENCH_INGEST_ROWS must be a whole number of rows >= 1000 (got "${raw}")`);
  }
  return rows;
}

function execArgvForService(): string[] {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  return dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
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

/** Runs the baseline child to its end and answers its report. */
function measureBaseline(
  dataDir: string,
  csv: string,
  parquet: string,
  aggregateRuns: number,
): Promise<BaselineReport> {
  return childReport<BaselineReport>(
    TARGET_SCRIPT,
    ['baseline', dataDir, csv, parquet, String(aggregateRuns)],
    'baseline',
  );
}

/** One baseline COPY and the upsert timed right after it. */
interface Round {
  baselineSeconds: number;
  baselineCpuSeconds: number;
  upsertSeconds: number;
  upsertCpuSeconds: number | null;
}

interface Phase {
  seconds: number;
  cpuSeconds: number | null;
  peakBytes: number | null;
  /** Resident memory at each tenth of the phase. */
  rssTenths: number[];
}

/** Times `work` in the server process: wall time, the server's CPU time and its peak memory. */
async function phase<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; phase: Phase }> {
  const canReset = resetPeak(pid);
  const sampler = sampleResident(pid);
  const cpuBefore = processCpuSeconds(pid);
  const started = performance.now();
  let result: T;
  let samples: { atMs: number; bytes: number }[];
  try {
    result = await work();
  } finally {
    samples = sampler.stop();
  }
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = processCpuSeconds(pid);
  const sampledPeak = samples.length === 0 ? null : Math.max(...samples.map((sample) => sample.bytes));
  return {
    result,
    phase: {
      seconds,
      cpuSeconds: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
      // The kernel's peak catches spikes between samples; without a reset it would be the lifetime peak.
      peakBytes: canReset ? peakResidentBytes(pid) : sampledPeak,
      rssTenths: tenths(samples),
    },
  };
}

interface ServiceResult {
  startupPeakBytes: number | null;
  upload: Phase;
  upsert: Phase;
  aggregate: Phase;
  aggregateMs: number[];
  /** Later rounds: a baseline COPY, then an `overwrite` upsert of the same file. */
  rounds: Round[];
}

/**
 * `rebaseline` runs the baseline COPY again for each later round: the host's speed drifts by a
 * factor of two within minutes on a shared machine, so each upsert is compared with a baseline
 * taken just before it, and the median over rounds is what the target is judged on.
 */
async function measureService(
  dataDir: string,
  csv: { path: string; bytes: number; rows: number },
  counted: { childCpu: number },
  laterRounds: number,
  rebaseline: () => Promise<BaselineReport>,
): Promise<ServiceResult> {
  const uploadMax = Math.max(DEFAULT_UPLOAD_MAX, csv.bytes + MIB);
  const server: RunningTarget = await startTarget(
    TARGET_SCRIPT,
    ['service', dataDir, String(uploadMax)],
    execArgvForService(),
  );
  const { pid } = server;
  try {
    const api = `${server.url}${API_PREFIX}`;
    const { token, collectionId } = await createBenchCollection(api, {
      project: 'ingest benchmark',
      workflow: 'ingest',
      tag: 'rows',
      pattern: 'ingest\\.csv',
    });
    const startupPeakBytes = peakResidentBytes(pid);

    process.stdout.write('  uploading ...\n');
    const upload = await phase(pid, () =>
      uploadFile(`${api}/datacollections/${collectionId}/files`, token, {
        localPath: csv.path,
        size: csv.bytes,
        run: 'bench',
        path: COLLECTION_FILE,
        contentType: 'text/csv',
      }),
    );
    const storedSize = field<number>(upload.result, 'size', 'upload');
    if (storedSize !== csv.bytes) throw new Error(`upload: stored ${storedSize} bytes of ${csv.bytes}`);

    process.stdout.write('  upserting ...\n');
    const upsert = await phase(pid, () =>
      requestJson('POST', `${api}/deltatables/upsert`, { token, body: { data_collection_id: collectionId } }),
    );
    const upsertRows = field<number>(upsert.result, 'rows', 'upsert');
    if (upsertRows !== csv.rows) throw new Error(`upsert: the table has ${upsertRows} rows, the file ${csv.rows}`);

    process.stdout.write(`  aggregating (${WARMUPS} warm-ups + ${AGGREGATE_RUNS} requests) ...\n`);
    const aggregateMs: number[] = [];
    const aggregate = await phase(pid, async () => {
      for (let run = 0; run < WARMUPS + AGGREGATE_RUNS; run++) {
        const started = performance.now();
        const answer = await requestJson('POST', `${api}/datacollections/${collectionId}/aggregate`, {
          token,
          body: AGGREGATE_REQUEST,
        });
        const elapsed = performance.now() - started;
        const rows = field<Record<string, unknown>[]>(answer, 'rows', 'aggregate');
        const total = rows.reduce((sum, row) => sum + Number(row.count_value), 0);
        if (rows.length !== GROUPS.length || total !== csv.rows) {
          throw new Error(
            `aggregate: ${rows.length} groups counting ${total} rows; expected ${GROUPS.length} and ${csv.rows}`,
          );
        }
        if (run >= WARMUPS) aggregateMs.push(elapsed);
      }
    });

    const rounds: Round[] = [];
    for (let round = 0; round < laterRounds; round++) {
      process.stdout.write(`  round ${round + 2}: baseline again, then an overwrite upsert ...\n`);
      const baseline = await rebaseline();
      const again = await phase(pid, () =>
        requestJson('POST', `${api}/deltatables/upsert`, {
          token,
          body: { data_collection_id: collectionId, overwrite: true },
        }),
      );
      const againRows = field<number>(again.result, 'rows', 'upsert');
      if (againRows !== csv.rows) throw new Error(`upsert: the table has ${againRows} rows, the file ${csv.rows}`);
      rounds.push({
        baselineSeconds: baseline.copySeconds,
        baselineCpuSeconds: baseline.copyCpuSeconds,
        upsertSeconds: again.phase.seconds,
        upsertCpuSeconds: again.phase.cpuSeconds,
      });
    }

    return {
      startupPeakBytes,
      upload: upload.phase,
      upsert: upsert.phase,
      aggregate: aggregate.phase,
      aggregateMs,
      rounds,
    };
  } finally {
    counted.childCpu += processCpuSeconds(pid) ?? 0;
    closeConnections();
    await server.stop();
  }
}

export async function run(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`takes no arguments (got "${args.join(' ')}")`);
  const rows = rowsFromEnv();
  const roundCount = roundsFromEnv();
  const cpuCount = cpus().length;
  const out = (line = '') => process.stdout.write(`${line}\n`);

  out(`ingest benchmark, ${new Date().toISOString()}`);
  out(`rows: ${grouped(rows)}${rows === DEFAULT_ROWS ? '' : ' (BENCH_INGEST_ROWS)'}`);
  out("baseline and server each run alone in a child process; both use the server's DuckDB settings (2 threads)");
  await printMachine(out);
  out();

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

    out('baseline: DuckDB COPY read_csv -> Parquet ...');
    const baselineDir = join(workDir, 'baseline');
    const baseline = await measureBaseline(baselineDir, csvPath, join(workDir, 'baseline.parquet'), AGGREGATE_RUNS);
    counted.childCpu += baseline.copyCpuSeconds;
    if (baseline.rows !== rows) throw new Error(`baseline: the Parquet file has ${baseline.rows} rows, not ${rows}`);
    await rm(join(workDir, 'baseline.parquet'), { force: true });
    await rm(baselineDir, { recursive: true, force: true });

    out('service: real server, embedded SQLite and local storage in a temp dir ...');
    const rebaseline = async () => {
      const parquet = join(workDir, 'baseline.parquet');
      try {
        const report = await measureBaseline(baselineDir, csvPath, parquet, 0);
        counted.childCpu += report.copyCpuSeconds;
        return report;
      } finally {
        await rm(parquet, { force: true });
        await rm(baselineDir, { recursive: true, force: true });
      }
    };
    const service = await measureService(join(workDir, 'service'), csv, counted, roundCount - 1, rebaseline);
    span.end();

    const mbPerSecond = (seconds: number) => fixed(generated.bytes / MIB / seconds, 0);
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

    span.print(out, counted.childCpu, cpuCount);

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
    const verdicts: [boolean, string][] = [
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
    printVerdicts(out, verdicts);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
