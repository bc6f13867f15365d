import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { idleBusyFraction, processCpuSeconds } from '../lib/machine.js';
import { CpuSpan, printVerdicts } from '../lib/report.js';
import { percentile } from '../lib/stats.js';
import { formatTable } from '../lib/table.js';
import { UsageError } from '../lib/usage-error.js';
import { PROBE_KIND } from '../probe/probe.js';
import { adminUrl, createDatabase, startWorker, type WorkerProcess } from './jobs-setup.js';

const CHANNEL = 'service_jobs';
const WORKER_COUNTS = [1, 4] as const;
const LATENCY_JOBS = 200;
const LATENCY_GAP_MS = 20;
const THROUGHPUT_JOBS = 2_000;
const TARGET_P50_MS = 50;
const TARGET_JOBS_PER_SECOND = 500;
const CANCELS = 10;
/** docs/jobs.md: a cancelled job's task stops within about a second (the heartbeat is every 0.5 s). */
const TARGET_CANCEL_STOP_MS = 1_000;
const PROBE = { kind: PROBE_KIND, payload: '{}' } as const;

type Queue = InstanceType<typeof import('@service/server')['JobQueue']>;
type Database = import('@service/server').Database;

interface Figures {
  p50Ms: number;
  p99Ms: number;
  jobsPerSecond: number;
}

const unfinished = async (client: pg.Client) =>
  Number(
    (await client.query<{ n: string }>(`select count(*) as n from jobs where status in ('pending', 'running')`)).rows[0]
      ?.n,
  );

async function waitUntilDrained(client: pg.Client, what: string): Promise<void> {
  const deadline = Date.now() + 300_000;
  while ((await unfinished(client)) > 0) {
    if (Date.now() > deadline) throw new Error(`${what}: jobs still unfinished after 5 minutes`);
    await sleep(20);
  }
  const failed = await client.query(`select count(*) as n from jobs where status <> 'success'`);
  if (Number(failed.rows[0]?.n) > 0) throw new Error(`${what}: ${failed.rows[0]?.n} jobs did not succeed`);
}

/** Enqueue-to-start latencies (ms) of jobs enqueued one at a time at a steady pace. */
async function latencies(enqueue: () => Promise<void>, client: pg.Client, what: string): Promise<number[]> {
  await client.query('truncate jobs cascade');
  for (let i = 0; i < LATENCY_JOBS; i++) {
    await enqueue();
    await sleep(LATENCY_GAP_MS);
  }
  await waitUntilDrained(client, what);
  const rows = await client.query<{ created_at: string; started_at: string }>(
    'select created_at, started_at from jobs',
  );
  if (rows.rows.length !== LATENCY_JOBS) throw new Error(`${what}: ${rows.rows.length} jobs of ${LATENCY_JOBS}`);
  return rows.rows.map((row) => Date.parse(row.started_at) - Date.parse(row.created_at));
}

/** Jobs per second from the moment `fill` made `THROUGHPUT_JOBS` jobs visible until the last one ended. */
async function throughput(fill: () => Promise<void>, client: pg.Client, what: string): Promise<number> {
  await client.query('truncate jobs cascade');
  await fill();
  const started = Date.now();
  await waitUntilDrained(client, what);
  const last = await client.query<{ at: string }>('select max(finished_at) as at from jobs');
  const seconds = (Date.parse(last.rows[0]?.at ?? '') - started) / 1000;
  const count = Number((await client.query('select count(*) as n from jobs')).rows[0]?.n);
  if (count !== THROUGHPUT_JOBS) throw new Error(`${what}: ${count} jobs of ${THROUGHPUT_JOBS}`);
  return THROUGHPUT_JOBS / seconds;
}

/** Our queue, run by `workers` real worker processes. */
async function measureService(queue: Queue, database: Database, client: pg.Client, workers: number): Promise<Figures> {
  const owner = { userId: null, projectId: null };
  const ms = await latencies(
    async () => {
      await queue.enqueue(PROBE.kind, {}, owner);
    },
    client,
    `service, ${workers} workers, latency`,
  );
  const jobsPerSecond = await throughput(
    () =>
      database.db.transaction().execute(async (trx) => {
        for (let i = 0; i < THROUGHPUT_JOBS; i++) await queue.enqueue(PROBE.kind, {}, owner, trx);
      }),
    client,
    `service, ${workers} workers, throughput`,
  );
  return { p50Ms: percentile(ms, 0.5), p99Ms: percentile(ms, 0.99), jobsPerSecond };
}

const CLAIM = `
  update jobs set status = 'running', lease_owner = $1, lease_expires_at = $2, attempts = attempts + 1,
    started_at = coalesce(started_at, $3), updated_at = $3
  where job_id = (select job_id from jobs where status = 'pending' order by created_at, job_id limit 1 for update skip locked)
    and status = 'pending'
  returning job_id`;
const FINISH = `
  update jobs set status = 'success', result = 'null', progress = 1, finished_at = $3, updated_at = $3,
    lease_owner = null, lease_expires_at = null
  where job_id = $1 and lease_owner = $2 and status = 'running'`;
const INSERT = `
  insert into jobs (job_id, kind, status, step, payload, attempts, max_attempts, cancel_requested, created_at, updated_at)
  select gen_random_uuid()::text, $1, 'pending', 'queued', $2, 0, 3, 0, $3, $3 from generate_series(1, $4)`;

/** Polls `query` (every 5 ms, up to 30 s) until it answers a row. */
async function rowOf<T>(client: pg.Client, query: string, values: unknown[], what: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const row = (await client.query(query, values)).rows[0] as T | undefined;
    if (row !== undefined) return row;
    if (Date.now() > deadline) throw new Error(`${what}: not after 30 s`);
    await sleep(5);
  }
}

/**
 * Cancel-to-stop (ms) with one worker: a probe holds the worker until cancelled; right after the
 * cancel a second job is queued, and the worker can only start it once the cancelled task has
 * stopped, so its `started_at` minus the moment of the cancel is how long the stop took.
 */
async function cancelStops(queue: Queue, client: pg.Client): Promise<number[]> {
  await client.query('truncate jobs cascade');
  const owner = { userId: null, projectId: null };
  const ms: number[] = [];
  for (let i = 0; i < CANCELS; i++) {
    const held = await queue.enqueue(PROBE.kind, { hold_ms: 600_000 }, owner);
    await rowOf(client, `select 1 from jobs where job_id = $1 and status = 'running'`, [held.job_id], 'probe start');
    const cancelledAt = Date.now();
    await queue.cancel(held.job_id);
    const next = await queue.enqueue(PROBE.kind, {}, owner);
    const started = await rowOf<{ started_at: string }>(
      client,
      'select started_at from jobs where job_id = $1 and started_at is not null',
      [next.job_id],
      'the next job starting',
    );
    ms.push(Date.parse(started.started_at) - cancelledAt);
    await rowOf(client, `select 1 from jobs where job_id = $1 and status = 'success'`, [next.job_id], 'the next job');
  }
  return ms;
}

/** The bare statements: `count` loops in this process, each with a LISTEN connection and a working one. */
async function measureBaseline(url: string, client: pg.Client, count: number): Promise<Figures> {
  let stopped = false;
  const loops = await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const listener = new pg.Client({ connectionString: url });
      const worker = new pg.Client({ connectionString: url });
      await Promise.all([listener.connect(), worker.connect()]);
      await listener.query(`LISTEN ${CHANNEL}`);
      let wake: (() => void) | null = null;
      let wakeups = 0;
      listener.on('notification', () => {
        wakeups += 1;
        wake?.();
      });
      const name = `baseline-${index}`;
      const done = (async () => {
        while (!stopped) {
          const seen = wakeups;
          const now = new Date().toISOString();
          const lease = new Date(Date.now() + 15_000).toISOString();
          const claimed = await worker.query<{ job_id: string }>(CLAIM, [name, lease, now]);
          const jobId = claimed.rows[0]?.job_id;
          if (jobId) await worker.query(FINISH, [jobId, name, new Date().toISOString()]);
          else if (wakeups === seen) {
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, 2_000);
              wake = () => {
                clearTimeout(timer);
                resolve();
              };
            });
            wake = null;
          }
        }
      })();
      return {
        async stop() {
          wake?.();
          await done;
          await Promise.all([listener.end(), worker.end()]);
        },
      };
    }),
  );
  const insert = async (jobs: number) => {
    await client.query(INSERT, [PROBE.kind, PROBE.payload, new Date().toISOString(), jobs]);
    await client.query('select pg_notify($1, $2)', [CHANNEL, PROBE.kind]);
  };
  try {
    const ms = await latencies(() => insert(1), client, `baseline, ${count} loops, latency`);
    const jobsPerSecond = await throughput(
      () => insert(THROUGHPUT_JOBS),
      client,
      `baseline, ${count} loops, throughput`,
    );
    return { p50Ms: percentile(ms, 0.5), p99Ms: percentile(ms, 0.99), jobsPerSecond };
  } finally {
    stopped = true;
    await Promise.all(loops.map((loop) => loop.stop()));
  }
}

type Out = (line?: string) => void;
type Row = { name: string; service: Figures; baseline: Figures; cpuMsPerJob: number };
const fixed = (value: number, digits: number) => value.toFixed(digits);

export async function run(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`takes no arguments (got "${args.join(' ')}")`);
  const admin = adminUrl();
  const cpuCount = cpus().length;
  const out: Out = (line = '') => process.stdout.write(`${line}\n`);
  await printHeader(out, cpuCount);

  const target = await createDatabase(admin);
  const dataDir = await mkdtemp(join(tmpdir(), 'service-bench-jobs-'));
  const { openDatabase, migrateToLatest, JobQueue } = await import('@service/server');
  const database = openDatabase({ kind: 'postgres', url: target.url });
  const client = new pg.Client({ connectionString: target.url });
  const workers: WorkerProcess[] = [];
  try {
    await migrateToLatest(database);
    await client.connect();
    const queue = new JobQueue(database);
    const span = new CpuSpan();
    // Every baseline first: once started, our workers would claim the baseline's jobs too.
    const baselines = new Map<number, Figures>();
    for (const count of WORKER_COUNTS) {
      out(`baseline, ${count} loop${count === 1 ? '' : 's'} ...`);
      baselines.set(count, await measureBaseline(target.url, client, count));
    }
    const measured = await measureWorkers(out, {
      url: target.url,
      dataDir,
      queue,
      database,
      client,
      workers,
      baselines,
    });
    span.end();

    report(out, measured.rows, measured.stops);
    // PostgreSQL's own CPU counts as "other processes": it serves both the baseline and the service.
    span.print(out, measured.workerCpu, cpuCount, 'other processes (PostgreSQL included)');
    printVerdicts(out, verdicts(measured.rows, measured.stops));
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await client.end().catch(() => undefined);
    await database.close();
    await target.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function printHeader(out: Out, cpuCount: number): Promise<void> {
  out(`jobs benchmark, ${new Date().toISOString()}`);
  out(`machine: ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpuCount} CPUs, Node ${process.version}`);
  out(
    `queue.probe jobs on a fresh PostgreSQL database; workers are probe worker processes ` +
      `(\`service worker --concurrency 1\` plus the probe's handler); ` +
      `latency: ${LATENCY_JOBS} jobs one every ${LATENCY_GAP_MS} ms; throughput: ${THROUGHPUT_JOBS} jobs at once`,
  );
  const idleBusy = await idleBusyFraction(cpuCount);
  if (idleBusy !== null) {
    out(`machine busy before the run: ${fixed(idleBusy * 100, 0)}% of all CPUs`);
    if (idleBusy > 0.15) out('WARNING: other processes are using the CPUs; figures will be low and noisy');
  }
  out();
}

interface WorkerSetup {
  url: string;
  dataDir: string;
  queue: Parameters<typeof measureService>[0];
  database: Parameters<typeof measureService>[1];
  client: pg.Client;
  /** The worker processes started so far (the caller stops them). */
  workers: WorkerProcess[];
  baselines: Map<number, Figures>;
}

/**
 * Our workers, 1, then more: each count's latency and throughput with the workers' CPU, and with
 * one worker the cancel-to-stop times.
 */
async function measureWorkers(out: Out, setup: WorkerSetup) {
  const { workers, queue, database, client } = setup;
  const rows: Row[] = [];
  let workerCpu = 0;
  let stops: number[] = [];
  for (const count of WORKER_COUNTS) {
    const baseline = setup.baselines.get(count) as Figures;
    while (workers.length < count) workers.push(await startWorker(setup.url, setup.dataDir));
    out(`service, ${count} worker${count === 1 ? '' : 's'} ...`);
    const cpuBefore = workers.map((worker) => processCpuSeconds(worker.pid) ?? 0);
    const service = await measureService(queue, database, client, count);
    const cpu = workers.reduce((sum, worker, i) => sum + (processCpuSeconds(worker.pid) ?? 0) - (cpuBefore[i] ?? 0), 0);
    workerCpu += cpu;
    const cpuMsPerJob = (cpu * 1000) / (LATENCY_JOBS + THROUGHPUT_JOBS);
    rows.push({ name: `${count} worker${count === 1 ? '' : 's'}`, service, baseline, cpuMsPerJob });
    // With one worker only that worker can take the next job, so its start marks the stop.
    if (count === 1) {
      out(`cancel-to-stop, 1 worker, ${CANCELS} cancels ...`);
      stops = await cancelStops(queue, client);
    }
  }
  return { rows, workerCpu, stops };
}

function report(out: Out, rows: Row[], stops: number[]): void {
  out();
  out(
    formatTable(
      [
        '',
        'p50 ms',
        'p99 ms',
        'jobs/s',
        'baseline p50',
        'baseline p99',
        'baseline jobs/s',
        'jobs/s ratio',
        'worker CPU ms/job',
      ],
      rows.map(({ name, service, baseline, cpuMsPerJob }) => [
        name,
        fixed(service.p50Ms, 0),
        fixed(service.p99Ms, 0),
        fixed(service.jobsPerSecond, 0),
        fixed(baseline.p50Ms, 0),
        fixed(baseline.p99Ms, 0),
        fixed(baseline.jobsPerSecond, 0),
        `${fixed(service.jobsPerSecond / baseline.jobsPerSecond, 2)}x`,
        fixed(cpuMsPerJob, 2),
      ]),
    ),
  );
  out(
    '(latency is enqueue-to-start, timestamps have 1 ms resolution; worker CPU is all worker processes together, ' +
      'per job of the latency and throughput phases)',
  );
  out(
    `cancel-to-stop (a running job cancelled until its worker starts the next one), ${CANCELS} cancels: ` +
      `p50 ${fixed(percentile(stops, 0.5), 0)} ms, max ${fixed(Math.max(...stops), 0)} ms`,
  );
  out();
}

function verdicts(rows: Row[], stops: number[]): [boolean, string][] {
  const four = rows.find((row) => row.name === '4 workers');
  if (!four) throw new Error('no 4-worker figures');
  return [
    [
      four.service.p50Ms < TARGET_P50_MS,
      `p50 enqueue-to-start < ${TARGET_P50_MS} ms: ${fixed(four.service.p50Ms, 0)} ms`,
    ],
    [
      four.service.jobsPerSecond >= TARGET_JOBS_PER_SECOND,
      `>= ${TARGET_JOBS_PER_SECOND} jobs/s with 4 workers: ${fixed(four.service.jobsPerSecond, 0)} jobs/s`,
    ],
    [
      Math.max(...stops) < TARGET_CANCEL_STOP_MS,
      `cancel-to-stop < ${TARGET_CANCEL_STOP_MS} ms: max ${fixed(Math.max(...stops), 0)} ms`,
    ],
  ];
}
