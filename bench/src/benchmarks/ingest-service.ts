/**
 * The `ingest` benchmark's measurements (ingest.ts): the baseline child's report, and the real
 * server taking the file in (upload, upsert) and answering the aggregate, each phase timed with
 * the server's CPU time and peak memory.
 */
import { fileURLToPath } from 'node:url';
import { childReport, type RunningTarget, startTarget } from '../lib/child-target.js';
import { processCpuSeconds } from '../lib/machine.js';
import { createBenchCollection, field } from './collection-fixture.js';
import { GROUPS } from './ingest-data.js';
import { closeConnections, requestJson, uploadFile } from './ingest-http.js';
import { peakResidentBytes, resetPeak, sampleResident, tenths } from './ingest-memory.js';
import type { BaselineReport } from './ingest-target.js';

// Kept literal rather than imported so this process never loads the server (only the children do).
const API_PREFIX = '/service/api/v1';
const TARGET_SCRIPT = fileURLToPath(new URL('./ingest-target.js', import.meta.url));

export const WARMUPS = 2;
export const AGGREGATE_RUNS = 20;
/** The server's default upload cap (SERVICE_UPLOAD_MAX_BYTES); raised only when the file is bigger. */
const DEFAULT_UPLOAD_MAX = 1024 ** 3;
const MIB = 1024 ** 2;

export const COLLECTION_FILE = 'ingest.csv';
const AGGREGATE_REQUEST = {
  group_by: ['group'],
  aggregates: [
    { column: 'value', fn: 'count' },
    { column: 'value', fn: 'sum' },
    { column: 'value', fn: 'mean' },
  ],
};

function execArgvForService(): string[] {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  return dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
}

/** Runs the baseline child to its end and answers its report. */
export function measureBaseline(
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
export interface Round {
  baselineSeconds: number;
  baselineCpuSeconds: number;
  upsertSeconds: number;
  upsertCpuSeconds: number | null;
}

export interface Phase {
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

export interface ServiceResult {
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
export async function measureService(
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

    const { aggregate, aggregateMs } = await measureAggregates(pid, api, token, collectionId, csv.rows);
    const rounds = await measureLaterRounds(pid, api, token, collectionId, csv.rows, laterRounds, rebaseline);

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

/** The aggregate route, warm-ups left out; checked to count every row in its groups. */
async function measureAggregates(pid: number, api: string, token: string, collectionId: string, csvRows: number) {
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
      if (rows.length !== GROUPS.length || total !== csvRows) {
        throw new Error(
          `aggregate: ${rows.length} groups counting ${total} rows; expected ${GROUPS.length} and ${csvRows}`,
        );
      }
      if (run >= WARMUPS) aggregateMs.push(elapsed);
    }
  });

  return { aggregate, aggregateMs };
}

/** Each later round: the baseline again, then an `overwrite` upsert of the same file. */
async function measureLaterRounds(
  pid: number,
  api: string,
  token: string,
  collectionId: string,
  csvRows: number,
  laterRounds: number,
  rebaseline: () => Promise<BaselineReport>,
): Promise<Round[]> {
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
    if (againRows !== csvRows) throw new Error(`upsert: the table has ${againRows} rows, the file ${csvRows}`);
    rounds.push({
      baselineSeconds: baseline.copySeconds,
      baselineCpuSeconds: baseline.copyCpuSeconds,
      upsertSeconds: again.phase.seconds,
      upsertCpuSeconds: again.phase.cpuSeconds,
    });
  }

  return rounds;
}
