import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { expect, inject, it } from 'vitest';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  createTestDatabase,
  login,
  startTestServer,
  uploadFile,
} from '../../../test/support/test-server.js';

/** The built CLI (`npx tsc -b`): its workers are separate OS processes. */
const CLI = fileURLToPath(new URL('../../../cli/dist/main.js', import.meta.url));

interface Worker {
  process: ChildProcessByStdio<null, Readable, Readable>;
  /** The jobs this worker started, from its own log. */
  started(): string[];
  running: Promise<void>;
  exited: Promise<number | null>;
}

/** `service worker --concurrency 1` on `database`, logging at info so its claims can be read. */
function startWorker(database: { url: string; dataDir: string }): Worker {
  const child = spawn(process.execPath, [CLI, 'worker', '--concurrency', '1'], {
    env: {
      PATH: process.env.PATH,
      SERVICE_DATABASE_URL: database.url,
      SERVICE_DATA_DIR: database.dataDir,
      SERVICE_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const running = new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.includes('Worker running')) resolve();
    });
    void exited.then((code) => reject(new Error(`worker exited with ${code}: ${stderr}`)));
  });
  const started = () =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; jobId?: string })
      .filter((line) => line.msg === 'job started' && line.jobId !== undefined)
      .map((line) => line.jobId as string);
  return { process: child, started, running, exited };
}

// Two API replicas in this process need a server database; SQLite replicas are separate processes.
it.skipIf(inject('postgresAdminUrl') === '')(
  'starts one ingestion when two API replicas are triggered at once',
  async () => {
    const database = await createTestDatabase('postgres');
    const first = await startTestServer(database, { SERVICE_JOBS_WORKERS: '0' });
    const second = await startTestServer(database, { SERVICE_JOBS_WORKERS: '0' });
    try {
      const { access_token: token } = await login(first, ADMIN.email, ADMIN.password);
      const { projectId } = await createProjectWithUpload(first, token, 'replicated');
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          call<{ run_id: string; job_id: string; already_running: boolean }>(
            i % 2 === 0 ? first : second,
            'POST',
            `/projects/ingestion/trigger/${projectId}`,
            { token },
          ),
        ),
      );
      expect(answers.filter((answer) => answer.status === 202)).toHaveLength(1);
      expect(new Set(answers.map((answer) => answer.body.run_id)).size).toBe(1);
      expect(new Set(answers.map((answer) => answer.body.job_id)).size).toBe(1);
      const runs = await first.context.database.db
        .selectFrom('ingestion_runs')
        .selectAll()
        .where('project_id', '=', projectId)
        .execute();
      expect(runs).toHaveLength(1);
      const jobs = await first.context.database.db
        .selectFrom('jobs')
        .selectAll()
        .where('project_id', '=', projectId)
        .execute();
      expect(jobs).toHaveLength(1);
    } finally {
      await first.stop();
      await second.stop();
      await database.drop();
    }
  },
);

it.skipIf(inject('postgresAdminUrl') === '')(
  'lands both upserts of one table that two worker processes run at once, each with its own file',
  async () => {
    const database = await createTestDatabase('postgres');
    const api = await startTestServer(database, { SERVICE_JOBS_WORKERS: '0' });
    const workers = [startWorker(database), startWorker(database)];
    try {
      const { access_token: token } = await login(api, ADMIN.email, ADMIN.password);
      const { collectionId } = await createProjectWithUpload(api, token, 'two writers', 'a,b\n0,seed\n');
      // Version 0, from the first file alone, written in the request.
      const seeded = await call<{ version: number }>(api, 'POST', '/deltatables/upsert', {
        token,
        json: { data_collection_id: collectionId },
      });
      expect(seeded.body.version).toBe(0);
      // Two more files, big enough that the two upserts overlap: ids 1..ROWS and ROWS+1..2*ROWS.
      const ROWS = 100_000;
      const rowsOf = (label: string, from: number) =>
        `a,b\n${Array.from({ length: ROWS }, (_, i) => `${from + i},${label}`).join('\n')}\n`;
      for (const [run, from] of [
        ['first', 1],
        ['second', ROWS + 1],
      ] as const) {
        expect(await uploadFile(api, token, collectionId, { run, path: 't.csv', content: rowsOf(run, from) })).toBe(
          201,
        );
      }
      const files = await api.context.database.db
        .selectFrom('files')
        .innerJoin('runs', 'runs.id', 'files.run_id')
        .select(['files.id', 'runs.tag'])
        .where('runs.tag', 'in', ['first', 'second'])
        .orderBy('runs.tag')
        .execute();
      expect(files.map((file) => file.tag)).toEqual(['first', 'second']);

      await Promise.all(workers.map((worker) => worker.running));
      const accepted = await Promise.all(
        files.map((file) =>
          call<{ job_id: string }>(api, 'POST', '/deltatables/upsert', {
            token,
            json: { data_collection_id: collectionId, file_ids: [file.id], async_mode: true },
          }),
        ),
      );
      expect(accepted.map((answer) => answer.status)).toEqual([202, 202]);
      const jobIds = accepted.map((answer) => answer.body.job_id);

      // Each worker process claims one of them (neither is free until its upsert ends).
      await expect
        .poll(() => workers.map((worker) => worker.started().length), { timeout: 60_000, interval: 50 })
        .toEqual([1, 1]);
      expect(new Set(workers.flatMap((worker) => worker.started()))).toEqual(new Set(jobIds));

      const ended = async (jobId: string) => {
        for (let i = 0; i < 1200; i++) {
          const job = await api.context.jobs.get(jobId);
          if (job?.finished_at) return job;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        throw new Error(`job ${jobId} did not end`);
      };
      const jobs = await Promise.all(jobIds.map(ended));
      expect(jobs.map((job) => job.status)).toEqual(['success', 'success']);
      // They ran at once: each started before the other ended (timestamps written by the workers).
      const [one, two] = jobs.map((job) => ({
        started: Date.parse(job.started_at ?? ''),
        finished: Date.parse(job.finished_at ?? ''),
      })) as [{ started: number; finished: number }, { started: number; finished: number }];
      expect(Math.max(one.started, two.started)).toBeLessThan(Math.min(one.finished, two.finished));
      const versions = jobs.map((job) => (JSON.parse(job.result ?? '{}') as { version: number }).version);
      expect(versions.sort()).toEqual([1, 2]);
      const history = await call<{ items: { version: number }[] }>(
        api,
        'GET',
        `/datacollections/${collectionId}/versions`,
        { token },
      );
      expect(history.body.items.map((entry) => entry.version)).toEqual([2, 1, 0]);

      // Every row of both files (and the seed) is there exactly once.
      const totals = await call<{ rows: Record<string, unknown>[] }>(
        api,
        'POST',
        `/datacollections/${collectionId}/aggregate`,
        {
          token,
          json: {
            group_by: ['b'],
            aggregates: [
              { fn: 'count', as: 'rows' },
              { fn: 'nunique', column: 'a', as: 'ids' },
              { fn: 'min', column: 'a', as: 'low' },
              { fn: 'max', column: 'a', as: 'high' },
            ],
            sort: [{ column: 'low' }],
          },
        },
      );
      expect(totals.status).toBe(200);
      expect(totals.body.rows.map((row) => ({ ...row, low: Number(row.low), high: Number(row.high) }))).toEqual([
        { b: 'seed', rows: 1, ids: 1, low: 0, high: 0 },
        { b: 'first', rows: ROWS, ids: ROWS, low: 1, high: ROWS },
        { b: 'second', rows: ROWS, ids: ROWS, low: ROWS + 1, high: 2 * ROWS },
      ]);
      for (const worker of workers) expect(worker.process.exitCode).toBeNull();
    } finally {
      for (const worker of workers) worker.process.kill('SIGTERM');
      const codes = await Promise.all(workers.map((worker) => worker.exited));
      await api.stop();
      await database.drop();
      expect(codes).toEqual([0, 0]);
    }
  },
  180_000,
);
