/**
 * `scale`: what more processes give, on one PostgreSQL database. API throughput of an authenticated
 * read (GET /projects with a bearer token) through a round-robin proxy in front of 1, then 2
 * `service serve` replicas; then jobs/s with 1, 2 and 4 worker processes. Each figure is set against
 * the single-process one, and printed with the CPU each process used (from /proc/<pid>/stat), so the
 * figures say where the limit is: the cores, the database or the process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { type RunningTarget, startTarget } from '../lib/child-target.js';
import { type LoadSettings, loadSettingsFromEnv, measure } from '../lib/load.js';
import { machineBusySeconds, ownCpuSeconds, processCpuSeconds } from '../lib/machine.js';
import { CpuSpan, printMachine } from '../lib/report.js';
import { formatTable } from '../lib/table.js';
import { UsageError } from '../lib/usage-error.js';
import { PROBE_KIND } from '../probe/probe.js';
import { adminUrl, createDatabase, startWorker, type WorkerProcess } from './jobs-setup.js';
import { type ReplicaProcess, SCALE_ADMIN, startReplica } from './scale-replica.js';

const API_PREFIX = '/service/api/v1';
const PROXY_SCRIPT = fileURLToPath(new URL('./scale-proxy.js', import.meta.url));
const REPLICA_COUNTS = [1, 2] as const;
const WORKER_COUNTS = [1, 2, 4] as const;
const JOBS_PER_RUN = 2_000;
/** Enough concurrent clients to keep two replicas busy through the proxy. */
const CONNECTIONS = 20;

type Out = (line?: string) => void;

/** The server processes of PostgreSQL that serve the benchmark's database (the machine's own server). */
async function postgresBackends(client: pg.Client): Promise<number[]> {
  const rows = await client.query<{ pid: number }>(
    'select pid from pg_stat_activity where datname = current_database()',
  );
  return rows.rows.map((row) => row.pid);
}

const LOAD_GENERATOR = 'load generator (this process)';
const POSTGRES = "PostgreSQL (the database's backends)";

/** CPU of named processes over a span, as a share of one core. */
class ProcessCpu {
  private readonly busyBefore = machineBusySeconds();
  private readonly startedAt = Date.now();
  private readonly ownBefore = ownCpuSeconds();
  private readonly before: Map<string, number>;
  private readonly backendsBefore = new Map<number, number>();

  private constructor(
    private readonly pids: Map<string, number>,
    private readonly client: pg.Client,
  ) {
    this.before = new Map([...pids].map(([name, pid]) => [name, processCpuSeconds(pid) ?? 0]));
  }

  static async start(pids: Map<string, number>, client: pg.Client): Promise<ProcessCpu> {
    const span = new ProcessCpu(pids, client);
    for (const pid of await postgresBackends(client)) span.backendsBefore.set(pid, processCpuSeconds(pid) ?? 0);
    return span;
  }

  /**
   * Each process's share, then this process's, PostgreSQL's (backends that ended in between are
   * missed; pooled connections stay) and the rest of the machine (the OS, other tenants).
   */
  async end(): Promise<[string, number][]> {
    const seconds = (Date.now() - this.startedAt) / 1000;
    const busyAfter = machineBusySeconds();
    const shares: [string, number][] = [...this.pids].map(([name, pid]) => [
      name,
      ((processCpuSeconds(pid) ?? 0) - (this.before.get(name) ?? 0)) / seconds,
    ]);
    shares.push([LOAD_GENERATOR, (ownCpuSeconds() - this.ownBefore) / seconds]);
    let postgres = 0;
    for (const pid of await postgresBackends(this.client)) {
      postgres += (processCpuSeconds(pid) ?? 0) - (this.backendsBefore.get(pid) ?? 0);
    }
    shares.push([POSTGRES, postgres / seconds]);
    if (this.busyBefore !== null && busyAfter !== null) {
      const ours = shares.reduce((sum, [, share]) => sum + share, 0);
      shares.push(['everything else', Math.max(0, (busyAfter - this.busyBefore) / seconds - ours)]);
    }
    return shares;
  }
}

/** CPU milliseconds per unit of work of the processes whose names start with `prefix`. */
const cpuMsPer = (shares: [string, number][], prefix: string, perSecond: number) =>
  (
    (shares.filter(([name]) => name.startsWith(prefix)).reduce((sum, [, share]) => sum + share, 0) * 1000) /
    perSecond
  ).toFixed(2);

const percent = (share: number) => `${(share * 100).toFixed(0)}%`;
const describeShares = (shares: [string, number][]) => shares.map(([name, share]) => `${name} ${percent(share)}`);

async function login(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}${API_PREFIX}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: SCALE_ADMIN.email, password: SCALE_ADMIN.password }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (!response.ok || typeof body.access_token !== 'string') throw new Error(`login: HTTP ${response.status}`);
  return body.access_token;
}

interface ApiFigure {
  replicas: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  shares: [string, number][];
}

/** `count` replicas behind the proxy, loaded with GET /projects; the replicas stop afterwards. */
async function measureApi(
  database: { url: string; client: pg.Client },
  dataDir: string,
  count: number,
  settings: LoadSettings,
): Promise<ApiFigure> {
  const { url, client } = database;
  const replicas: ReplicaProcess[] = [];
  let proxy: RunningTarget | null = null;
  try {
    // One at a time: the first one bootstraps the admin.
    for (let i = 0; i < count; i++) replicas.push(await startReplica(url, join(dataDir, `api-${i}`)));
    proxy = await startTarget(
      PROXY_SCRIPT,
      replicas.map((replica) => replica.url),
    );
    const token = await login(proxy.url);
    const target = {
      name: `GET /projects through the proxy, ${count} replica${count === 1 ? '' : 's'}`,
      url: `${proxy.url}${API_PREFIX}/projects`,
      headers: { authorization: `Bearer ${token}` },
    };
    await measure(target, { ...settings, warmupSeconds: 0, durationSeconds: Math.max(1, settings.warmupSeconds) });
    const pids = new Map(replicas.map((replica, i) => [`api-${i + 1}`, replica.pid]));
    pids.set('proxy', proxy.pid);
    const cpu = await ProcessCpu.start(pids, client);
    const result = await measure(target, { ...settings, warmupSeconds: 0 });
    return {
      replicas: count,
      requestsPerSecond: result.requestsPerSecond,
      p50Ms: result.p50Ms,
      p99Ms: result.p99Ms,
      shares: await cpu.end(),
    };
  } finally {
    await proxy?.stop();
    await Promise.all(replicas.map((replica) => replica.stop()));
  }
}

interface JobsFigure {
  workers: number;
  jobsPerSecond: number;
  shares: [string, number][];
}

async function waitUntilDrained(client: pg.Client): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const left = await client.query<{ n: string }>(
      `select count(*) as n from jobs where status in ('pending', 'running')`,
    );
    if (Number(left.rows[0]?.n) === 0) break;
    if (Date.now() > deadline) throw new Error('jobs still unfinished after 5 minutes');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const failed = await client.query<{ n: string }>(`select count(*) as n from jobs where status <> 'success'`);
  if (Number(failed.rows[0]?.n) > 0) throw new Error(`${failed.rows[0]?.n} jobs did not succeed`);
}

/** JOBS_PER_RUN probe jobs made visible at once, run by the workers already started. */
async function measureJobs(client: pg.Client, workers: WorkerProcess[]): Promise<JobsFigure> {
  await client.query('truncate jobs cascade');
  await client.query(
    `insert into jobs (job_id, kind, status, step, payload, attempts, max_attempts, cancel_requested, created_at, updated_at)
     select gen_random_uuid()::text, $1, 'pending', 'queued', '{}', 0, 3, 0, $2, $2 from generate_series(1, $3)`,
    [PROBE_KIND, new Date().toISOString(), JOBS_PER_RUN],
  );
  const started = Date.now();
  const cpu = await ProcessCpu.start(new Map(workers.map((worker, i) => [`worker-${i + 1}`, worker.pid])), client);
  await client.query(`select pg_notify('service_jobs', $1)`, [PROBE_KIND]);
  await waitUntilDrained(client);
  const shares = await cpu.end();
  const last = await client.query<{ at: string }>('select max(finished_at) as at from jobs');
  const seconds = (Date.parse(last.rows[0]?.at ?? '') - started) / 1000;
  return { workers: workers.length, jobsPerSecond: JOBS_PER_RUN / seconds, shares };
}

function printApi(out: Out, figures: ApiFigure[]): void {
  const single = figures[0]!.requestsPerSecond;
  out(
    formatTable(
      ['API replicas', 'req/s', 'x 1 replica', 'p50 ms', 'p99 ms', 'replica CPU ms/req', 'PostgreSQL CPU ms/req'],
      figures.map((figure) => [
        String(figure.replicas),
        figure.requestsPerSecond.toFixed(0),
        `${(figure.requestsPerSecond / single).toFixed(2)}x`,
        figure.p50Ms.toFixed(0),
        figure.p99Ms.toFixed(0),
        cpuMsPer(figure.shares, 'api-', figure.requestsPerSecond),
        cpuMsPer(figure.shares, 'PostgreSQL', figure.requestsPerSecond),
      ]),
    ),
  );
  for (const figure of figures) {
    out(
      `  CPU, ${figure.replicas} replica${figure.replicas === 1 ? '' : 's'}: ${describeShares(figure.shares).join(', ')}`,
    );
  }
}

function printJobs(out: Out, figures: JobsFigure[]): void {
  const single = figures[0]!.jobsPerSecond;
  out(
    formatTable(
      ['worker processes', 'jobs/s', 'x 1 worker', 'worker CPU ms/job', 'PostgreSQL CPU ms/job'],
      figures.map((figure) => [
        String(figure.workers),
        figure.jobsPerSecond.toFixed(0),
        `${(figure.jobsPerSecond / single).toFixed(2)}x`,
        cpuMsPer(figure.shares, 'worker-', figure.jobsPerSecond),
        cpuMsPer(figure.shares, 'PostgreSQL', figure.jobsPerSecond),
      ]),
    ),
  );
  for (const figure of figures) {
    out(
      `  CPU, ${figure.workers} worker${figure.workers === 1 ? '' : 's'}: ${describeShares(figure.shares).join(', ')}`,
    );
  }
}

export async function run(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`takes no arguments (got "${args.join(' ')}")`);
  const admin = adminUrl({
    ...process.env,
    SERVICE_TEST_DATABASE_URL: process.env.SERVICE_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test',
  });
  const settings = { ...loadSettingsFromEnv(), connections: CONNECTIONS };
  const out: Out = (line = '') => process.stdout.write(`${line}\n`);
  const cpuCount = cpus().length;

  out(`scale benchmark, ${new Date().toISOString()}`);
  await printMachine(out);
  out(
    `API: GET ${API_PREFIX}/projects (bearer token) through a round-robin proxy process in front of 1 and 2 ` +
      `\`service serve\` processes (SERVICE_JOBS_WORKERS=0) on one fresh PostgreSQL database; autocannon in this ` +
      `process, ${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s measured`,
  );
  out(
    `jobs: ${JOBS_PER_RUN} queue.probe jobs (no work: the queue's own cost) made visible at once, run by 1, 2 and 4 ` +
      `worker processes (\`service worker --concurrency 1\` plus the probe's handler)`,
  );
  out('CPU: per process, as a share of one core over the measured part; "everything else" is the machine minus ours');
  out();

  const target = await createDatabase(admin);
  const dataDir = await mkdtemp(join(tmpdir(), 'service-bench-scale-'));
  const { openDatabase, migrateToLatest } = await import('@service/server');
  const database = openDatabase({ kind: 'postgres', url: target.url });
  const client = new pg.Client({ connectionString: target.url });
  const workers: WorkerProcess[] = [];
  const span = new CpuSpan();
  let childCpu = 0;
  try {
    // `service migrate` before any process starts, as the Helm hook and the compose one-shot do.
    await migrateToLatest(database);
    await client.connect();

    const apiFigures: ApiFigure[] = [];
    for (const count of REPLICA_COUNTS) {
      out(`API, ${count} replica${count === 1 ? '' : 's'} ...`);
      apiFigures.push(await measureApi({ url: target.url, client }, dataDir, count, settings));
    }
    const jobsFigures: JobsFigure[] = [];
    for (const count of WORKER_COUNTS) {
      while (workers.length < count)
        workers.push(await startWorker(target.url, join(dataDir, `worker-${workers.length}`)));
      out(`jobs, ${count} worker${count === 1 ? '' : 's'} ...`);
      jobsFigures.push(await measureJobs(client, workers));
    }
    childCpu = workers.reduce((sum, worker) => sum + (processCpuSeconds(worker.pid) ?? 0), 0);
    span.end();

    out();
    printApi(out, apiFigures);
    out();
    printJobs(out, jobsFigures);
    out();
    out(
      `On ${cpuCount} cores every process shares the same cores with PostgreSQL and the load generator: a ratio near 1 ` +
        'with the cores full says the machine is the limit, not the design. CPU ms per request or job is what sizes a ' +
        'deployment: a replica or worker with a core of its own gives about 1000 / (its CPU ms) per second, until ' +
        "PostgreSQL's CPU ms times the total rate fills the database's cores.",
    );
    span.print(out, childCpu, cpuCount, 'processes other than the workers and this one (PostgreSQL, replicas, proxy)');
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await client.end().catch(() => undefined);
    await database.close();
    await target.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
