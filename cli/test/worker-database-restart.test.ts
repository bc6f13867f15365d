import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { JobQueue, migrateToLatest, openDatabase } from '@service/server';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { createProbeTable, PROBE_KIND } from '../../bench/src/probe/probe.js';
import { startEmbeddedPostgres } from '../../test/support/embedded-postgres-server.js';
import { exitOf, PROBE_WORKER } from './run-cli.js';

interface LogLine {
  level: number;
  msg: string;
}

/** Polls `probe` until it answers something other than undefined; database errors count as "not yet". */
async function eventually<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const answer = await probe().catch(() => undefined);
    if (answer !== undefined) return answer;
    await sleep(100);
  }
  throw new Error(`${what}: not after 60 s`);
}

// The machine's shared PostgreSQL serves everyone's tests; this one restarts a private server.
it('keeps a worker through a database restart: it reconnects, and the job it was running ends', async () => {
  const server = await startEmbeddedPostgres();
  const dataDir = await mkdtemp(join(tmpdir(), 'service-test-'));
  const database = openDatabase({ kind: 'postgres', url: server.url });
  // `service worker` plus the benchmark's `queue.probe` (bench/src/probe).
  const worker = spawn(process.execPath, [PROBE_WORKER, '--concurrency', '1'], {
    env: {
      PATH: process.env.PATH,
      SERVICE_DATABASE_URL: server.url,
      SERVICE_DATA_DIR: dataDir,
      SERVICE_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  worker.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  worker.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const logs = () =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  try {
    await migrateToLatest(database);
    await createProbeTable(database.db);
    const queue = new JobQueue(database);
    await eventually(async () => (stderr.includes('Worker running') ? true : undefined), 'worker start');
    const listening = () =>
      sql<{ n: number }>`
        select count(*)::int as n from pg_stat_activity where query = 'LISTEN service_jobs'`
        .execute(database.db)
        .then((result) => (result.rows[0]?.n === 1 ? true : undefined));
    await eventually(listening, 'LISTEN before the restart');

    const owner = { userId: null, projectId: null };
    const held = await queue.enqueue(PROBE_KIND, { hold_ms: 5_000, record: true }, owner);
    // Its record is written when the task starts: from then on it only holds its worker.
    await eventually(
      async () =>
        (await sql`select job_id from queue_probe_runs where job_id = ${held.job_id}`.execute(database.db)).rows
          .length === 1
          ? true
          : undefined,
      'the job starting',
    );
    await server.shutDown();
    // Down until the worker has noticed: a heartbeat (or claim, or recovery) failed, and its
    // notification connection is lost.
    await eventually(async () => {
      const messages = logs().map((line) => line.msg);
      const databaseLost = messages.some((message) =>
        message.endsWith('workers keep retrying until the database answers'),
      );
      const listenLost = messages.some((message) => message.startsWith('job notification connection lost'));
      return databaseLost && listenLost ? true : undefined;
    }, 'the worker noticing the outage');
    await server.startAgain();

    const ended = await eventually(async () => {
      const job = await queue.get(held.job_id);
      return job?.finished_at ? job : undefined;
    }, 'the held job ending');
    expect(ended).toMatchObject({ status: 'success', attempts: 1 });
    const runs = (await sql<{ job_id: string }>`select job_id from queue_probe_runs`.execute(database.db)).rows;
    expect(runs.map((run) => run.job_id)).toEqual([held.job_id]);

    // The worker is still the same process, listens again and takes new work.
    await eventually(listening, 'LISTEN after the restart');
    const next = await queue.enqueue(PROBE_KIND, {}, owner);
    const nextEnded = await eventually(async () => {
      const job = await queue.get(next.job_id);
      return job?.finished_at ? job : undefined;
    }, 'a job queued after the restart');
    expect(nextEnded.status).toBe('success');
    expect(worker.exitCode).toBeNull();

    // The worker logs a job's end after writing it: wait for both lines rather than race the pipe.
    await eventually(
      async () => (logs().filter((line) => line.msg === 'job succeeded').length >= 2 ? true : undefined),
      'both jobs logged as succeeded',
    );
    // A few clear lines about the outage, not one per failed heartbeat or claim.
    const messages = logs().map((line) => line.msg);
    expect(messages).toContain('job notification connection restored');
    expect(messages).toContain('database reachable again');
    expect(messages.some((message) => message.startsWith('job notification connection lost'))).toBe(true);
    expect(logs().filter((line) => line.level >= 40).length).toBeLessThanOrEqual(6);
    expect(messages.filter((message) => message === 'job succeeded')).toHaveLength(2);
  } finally {
    worker.kill('SIGTERM');
    const code = await exitOf(worker);
    await database.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
    expect(code, stderr).toBe(0);
  }
}, 240_000);
