/**
 * `live`: the live stream and schedules at scale, on one PostgreSQL database (docs/performance.md
 * "Live data"). 1,000 event streams through a round-robin proxy (scale-proxy.ts, as deploy/nginx.conf)
 * to 2 API replicas, then upserts through one replica:
 * the time from an event's commit until every stream has it (p50, p95, max), and what the streams
 * cost each replica in memory; then 100 schedules due in the same minute, looked for by 2 worker
 * processes: each must start exactly once.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { type RunningTarget, startTarget } from '../lib/child-target.js';
import { CpuSpan, printMachine, printVerdicts } from '../lib/report.js';
import { percentile } from '../lib/stats.js';
import { UsageError } from '../lib/usage-error.js';
import { adminUrl, createDatabase } from './jobs-setup.js';
import { type ReplicaProcess, SCALE_ADMIN, startReplica } from './scale-replica.js';

const API_PREFIX = '/service/api/v1';
const PROXY_SCRIPT = fileURLToPath(new URL('./scale-proxy.js', import.meta.url));
const SERVICE_CLI = fileURLToPath(new URL('../../../cli/dist/main.js', import.meta.url));
const STREAMS = 1_000;
const UPSERTS = 5;
const SCHEDULES = 100;
const TARGET_P95_MS = 2_000;
const TARGET_MIB_PER_1000 = 150;

type Out = (line?: string) => void;

/** Resident memory of a process in MiB (VmRSS), or NaN when unknown. */
function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

async function api<T>(base: string, method: string, path: string, token: string | null, json?: unknown): Promise<T> {
  const response = await fetch(`${base}${API_PREFIX}${path}`, {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text.slice(0, 300)}`);
  return (text === '' ? null : JSON.parse(text)) as T;
}

async function upload(base: string, token: string, collectionId: string, run: string, csv: string): Promise<void> {
  const form = new FormData();
  form.append('run', run);
  form.append('path', 't.csv');
  form.append('file', new Blob([csv]), 't.csv');
  const response = await fetch(`${base}${API_PREFIX}/datacollections/${collectionId}/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  if (response.status !== 201) throw new Error(`upload: HTTP ${response.status} ${await response.text()}`);
}

/** One open stream: when each event id arrived (ms since the epoch). */
interface Listener {
  arrived: Map<number, number>;
  ready: Promise<void>;
  close(): void;
}

function listen(base: string, token: string, projectId: string): Listener {
  const arrived = new Map<number, number>();
  const outgoing = request(`${base}${API_PREFIX}/events?project_id=${projectId}`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    agent: false,
  });
  const ready = new Promise<void>((resolve, reject) => {
    outgoing.once('error', reject);
    outgoing.once('response', (response) => {
      if (response.statusCode !== 200) reject(new Error(`GET /events: HTTP ${response.statusCode}`));
      let buffered = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffered += chunk;
        let end = buffered.indexOf('\n\n');
        while (end >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const id = /^id: (\d+)$/m.exec(block);
          // The bare id line a stream starts with: it is open and counted.
          if (id && !block.includes('event:')) resolve();
          if (id && block.includes('event: version')) arrived.set(Number(id[1]), Date.now());
          end = buffered.indexOf('\n\n');
        }
      });
    });
    outgoing.end();
  });
  return { arrived, ready, close: () => outgoing.destroy() };
}

/** `service worker` looking for due schedules every second, all processes reading one folder root. */
function startScheduleWorker(url: string, dataDir: string, roots: string): Promise<{ stop(): Promise<void> }> {
  const child = spawn(process.execPath, [SERVICE_CLI, 'worker', '--concurrency', '2'], {
    env: {
      PATH: process.env.PATH,
      SERVICE_DATABASE_URL: url,
      SERVICE_DATA_DIR: dataDir,
      SERVICE_DATABASE_AUTO_MIGRATE: 'false',
      SERVICE_INGESTION_ALLOWED_ROOTS: roots,
      SERVICE_SCHEDULES_TICK_SECONDS: '1',
      SERVICE_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before running: ${stderr.trim()}`)));
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (!stderr.includes('Worker running')) return;
      child.stderr.resume();
      resolve({
        async stop() {
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}

interface StreamFigures {
  latencies: number[];
  missing: number;
  mibPer1000: number[];
}

async function measureStreams(
  replicas: ReplicaProcess[],
  proxyUrl: string,
  client: pg.Client,
  out: Out,
): Promise<StreamFigures> {
  const [first] = replicas as [ReplicaProcess];
  const token = (await api<{ access_token: string }>(first.url, 'POST', '/auth/login', null, SCALE_ADMIN)).access_token;
  const project = await api<{ project_id: string }>(first.url, 'POST', '/projects', token, { name: 'live bench' });
  const workflow = await api<{ workflow_id: string }>(
    first.url,
    'POST',
    `/projects/${project.project_id}/workflows`,
    token,
    { name: 'wf' },
  );
  const collection = await api<{ data_collection_id: string }>(
    first.url,
    'POST',
    `/workflows/${workflow.workflow_id}/datacollections`,
    token,
    { tag: 't', pattern: 't\\.csv', format: 'csv' },
  );
  const collectionId = collection.data_collection_id;
  await upload(first.url, token, collectionId, 'run_0', 'a,b\n0,0\n');
  await api(first.url, 'POST', '/deltatables/upsert', token, { data_collection_id: collectionId });

  const before = replicas.map((replica) => rssMiB(replica.pid));
  out(`opening ${STREAMS} streams ...`);
  // Through the proxy, which hands the connections to the replicas in turn.
  const listeners = Array.from({ length: STREAMS }, () => listen(proxyUrl, token, project.project_id));
  await Promise.all(listeners.map((listener) => listener.ready));
  // Let the replicas settle (heartbeats, GC) before reading their memory.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const after = replicas.map((replica) => rssMiB(replica.pid));
  const perReplica = STREAMS / replicas.length;
  const mibPer1000 = after.map((mib, i) => ((mib - before[i]!) * 1000) / perReplica);

  const latencies: number[] = [];
  let missing = 0;
  for (let round = 1; round <= UPSERTS; round++) {
    await upload(first.url, token, collectionId, `run_${round}`, `a,b\n${round},${round}\n`);
    await api(first.url, 'POST', '/deltatables/upsert', token, { data_collection_id: collectionId });
    const row = await client.query<{ event_id: string; created_at: string }>(
      `select event_id, created_at from live_events where kind = 'version' order by event_id desc limit 1`,
    );
    const eventId = Number(row.rows[0]?.event_id);
    const committed = Date.parse(row.rows[0]?.created_at ?? '');
    const deadline = Date.now() + 30_000;
    while (listeners.some((listener) => !listener.arrived.has(eventId)) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    for (const listener of listeners) {
      const at = listener.arrived.get(eventId);
      if (at === undefined) missing += 1;
      else latencies.push(at - committed);
    }
  }
  for (const listener of listeners) listener.close();
  return { latencies, missing, mibPer1000 };
}

/** SCHEDULES workflows, each reading a folder of its own, due at the start of the next whole minute (UTC). */
async function measureSchedules(
  base: string,
  client: pg.Client,
  url: string,
  dataDir: string,
  out: Out,
): Promise<{ started: number[]; due: string }> {
  const token = (await api<{ access_token: string }>(base, 'POST', '/auth/login', null, SCALE_ADMIN)).access_token;
  const roots = join(dataDir, 'imports');
  // Far enough ahead to make every workflow first.
  const due = new Date(Math.ceil((Date.now() + 60_000) / 60_000) * 60_000);
  const cron = `${due.getUTCMinutes()} ${due.getUTCHours()} * * *`;
  out(`making ${SCHEDULES} scheduled workflows, due ${due.toISOString()} ...`);
  for (let i = 0; i < SCHEDULES; i++) {
    const folder = join(roots, `p${i}`);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'a.csv'), `x\n${i}\n`);
    const project = await api<{ project_id: string }>(base, 'POST', '/projects', token, { name: `scheduled ${i}` });
    const workflow = await api<{ workflow_id: string }>(
      base,
      'POST',
      `/projects/${project.project_id}/workflows`,
      token,
      {
        name: 'wf',
        data_location: { structure: 'flat', locations: [folder] },
        schedule: { cron, timezone: 'UTC' },
      },
    );
    await api(base, 'POST', `/workflows/${workflow.workflow_id}/datacollections`, token, {
      tag: 't',
      pattern: '[^/]+\\.csv',
      format: 'csv',
    });
  }
  const workers = [
    await startScheduleWorker(url, join(dataDir, 'worker-1'), roots),
    await startScheduleWorker(url, join(dataDir, 'worker-2'), roots),
  ];
  try {
    const counts = async () =>
      (
        await client.query<{ project_id: string; n: string }>(
          `select p.id as project_id, count(r.id) as n from projects p
           left join ingestion_runs r on r.project_id = p.id and r.trigger = 'schedule'
           where p.name like 'scheduled %' group by p.id`,
        )
      ).rows.map((row) => Number(row.n));
    const deadline = due.getTime() + 120_000;
    while (Date.now() < deadline && (await counts()).some((n) => n === 0))
      await new Promise((resolve) => setTimeout(resolve, 500));
    // A few more looks by both workers: a second start would show now.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    return { started: await counts(), due: due.toISOString() };
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
  }
}

export async function run(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`takes no arguments (got "${args.join(' ')}")`);
  const admin = adminUrl({
    ...process.env,
    SERVICE_TEST_DATABASE_URL: process.env.SERVICE_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test',
  });
  const out: Out = (line = '') => process.stdout.write(`${line}\n`);
  out(`live benchmark, ${new Date().toISOString()}`);
  await printMachine(out);
  out(
    `${STREAMS} GET /events streams (one user, one project) through a round-robin proxy to 2 \`service serve\` replicas ` +
      `(SERVICE_JOBS_WORKERS=0) on one fresh PostgreSQL database; ${UPSERTS} upserts through the first replica, each ` +
      "timed from its event's commit (live_events.created_at) until each stream read it; then " +
      `${SCHEDULES} schedules due in the same minute with 2 \`service worker\` processes looking every second`,
  );
  out();
  const target = await createDatabase(admin);
  const dataDir = await mkdtemp(join(tmpdir(), 'service-bench-live-'));
  const { openDatabase, migrateToLatest } = await import('@service/server');
  const database = openDatabase({ kind: 'postgres', url: target.url });
  const client = new pg.Client({ connectionString: target.url });
  const replicas: ReplicaProcess[] = [];
  let proxy: RunningTarget | null = null;
  const span = new CpuSpan();
  try {
    await migrateToLatest(database);
    await client.connect();
    const roots = join(dataDir, 'imports');
    await mkdir(roots, { recursive: true });
    const env = { SERVICE_EVENTS_MAX_STREAMS_PER_USER: String(STREAMS), SERVICE_INGESTION_ALLOWED_ROOTS: roots };
    // One at a time: the first one bootstraps the admin.
    for (const name of ['api-1', 'api-2']) replicas.push(await startReplica(target.url, join(dataDir, name), env));
    proxy = await startTarget(
      PROXY_SCRIPT,
      replicas.map((replica) => replica.url),
    );
    const streams = await measureStreams(replicas, proxy.url, client, out);
    const schedules = await measureSchedules(replicas[0]!.url, client, target.url, dataDir, out);
    span.end();

    const { latencies, missing, mibPer1000 } = streams;
    const p95 = percentile(latencies, 0.95);
    out();
    out(
      `delivery (${latencies.length} events read, ${missing} missing): p50 ${percentile(latencies, 0.5).toFixed(0)} ms, ` +
        `p95 ${p95.toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms`,
    );
    out(`memory per 1,000 streams: ${mibPer1000.map((mib, i) => `api-${i + 1} ${mib.toFixed(1)} MiB`).join(', ')}`);
    const once = schedules.started.filter((n) => n === 1).length;
    out(
      `schedules due ${schedules.due}: ${once} of ${SCHEDULES} started exactly once, ` +
        `${schedules.started.filter((n) => n === 0).length} never, ${schedules.started.filter((n) => n > 1).length} more than once`,
    );
    out();
    span.print(out, 0, cpus().length, 'processes other than this one (replicas, workers, PostgreSQL, others)');
    printVerdicts(out, [
      [
        missing === 0 && p95 < TARGET_P95_MS,
        `every stream has each event, p95 ${p95.toFixed(0)} ms < ${TARGET_P95_MS} ms`,
      ],
      [
        mibPer1000.every((mib) => mib < TARGET_MIB_PER_1000),
        `memory per 1,000 streams < ${TARGET_MIB_PER_1000} MiB on each replica`,
      ],
      [once === SCHEDULES, `each of ${SCHEDULES} schedules started exactly once`],
    ]);
  } finally {
    await proxy?.stop();
    await Promise.all(replicas.map((replica) => replica.stop()));
    await client.end().catch(() => undefined);
    await database.close();
    await target.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
