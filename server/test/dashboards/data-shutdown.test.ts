import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { API_PREFIX } from '@service/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAllServices, type ServiceProcess, startServe } from '../../../test/support/processes.js';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  createTestDatabase,
  login,
  type TestDatabase,
} from '../../../test/support/test-server.js';

/**
 * Issue 23, finding 2: SIGTERM drains `service serve` (the built CLI, a process of its own) within
 * its deadline. A data request that ends within SERVICE_SHUTDOWN_TIMEOUT_SECONDS is answered in
 * full; one that would run longer is interrupted at the deadline, its stream ends with
 * `service_unavailable` in the slots it did not finish, and the process exits 0 instead of
 * waiting for DuckDB. Both processes serve one SQLite database and data folder, one after the other.
 */
const ROWS = 100_000;
const CSV = [
  'sample,grp,x,y',
  ...Array.from({ length: ROWS }, (_, i) => `S${i},G${i % 1000},${(i * 7919) % 10007},${(i * 104729) % 9973}`),
  '',
].join('\n');

interface Line {
  version?: Record<string, number>;
  component_id?: string;
  data?: { error?: { code: string } };
}

/** A streamed data request, read line by line as it arrives. */
class Stream {
  private buffer = '';
  private readonly decoder = new TextDecoder();
  readonly lines: Line[] = [];
  private constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  static async open(url: string, token: string, body: unknown): Promise<{ status: number; stream: Stream }> {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify(body),
    });
    return { status: response.status, stream: new Stream(response.body!.getReader()) };
  }

  /** Reads until `count` lines have arrived, or the stream has ended; false when it ended first. */
  async until(count: number): Promise<boolean> {
    while (this.lines.length < count) {
      const { value, done } = await this.reader.read();
      if (done) return false;
      this.buffer += this.decoder.decode(value, { stream: true });
      const parts = this.buffer.split('\n');
      this.buffer = parts.pop() ?? '';
      for (const part of parts) if (part !== '') this.lines.push(JSON.parse(part) as Line);
    }
    return true;
  }

  /** Reads everything left; the connection may also be closed under it. */
  async rest(): Promise<'ended' | 'closed'> {
    try {
      await this.until(Number.POSITIVE_INFINITY);
      return 'ended';
    } catch {
      return 'closed';
    }
  }
}

/** Resolves with what happened first: the process exited, or `ms` passed. */
async function exitWithin(service: ServiceProcess, ms: number): Promise<number | null | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still running'>((resolve) => {
    timer = setTimeout(() => resolve('still running'), ms);
  });
  try {
    return await Promise.race([service.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('SIGTERM while data requests run', () => {
  let database: TestDatabase;
  let token: string;
  let dashboardId: string;
  let collectionId: string;

  const serve = (name: string, shutdownSeconds: string) =>
    startServe(name, {
      SERVICE_DATA_DIR: database.dataDir,
      SERVICE_DATABASE_URL: database.url,
      SERVICE_HOST: '127.0.0.1',
      SERVICE_PORT: '0',
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
      SERVICE_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      SERVICE_SHUTDOWN_TIMEOUT_SECONDS: shutdownSeconds,
    });

  /** `count` preview heatmaps of `sample` (500 of its 100,000 values kept) by binned `x`. */
  const heatmaps = (count: number) => ({
    preview: Array.from({ length: count }, (_, index) => ({
      component_id: `heat${index}`,
      type: 'figure',
      chart: 'heatmap',
      data_collection_id: collectionId,
      x: 'x',
      y: 'sample',
      bins: 100 + index,
      max_categories: 500,
    })),
    filters: [{ component_id: 'groups', value: Array.from({ length: 1000 }, (_, i) => `G${i}`) }],
  });

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    const setup = await serve('setup', '10');
    token = (await login(setup, ADMIN.email, ADMIN.password)).access_token;
    const project = await createProjectWithUpload(setup, token, 'Big', CSV);
    collectionId = project.collectionId;
    const upserted = await call(setup, 'POST', '/deltatables/upsert', {
      token,
      json: { data_collection_id: collectionId },
    });
    expect(upserted.status, upserted.text).toBe(200);
    const created = await call<{ dashboard_id: string }>(setup, 'POST', '/dashboards', {
      token,
      json: {
        project_id: project.projectId,
        title: 'Heavy',
        components: [
          {
            component_id: 'groups',
            type: 'interactive',
            widget: 'multiselect',
            data_collection_id: collectionId,
            column: 'grp',
          },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;
    setup.child.kill('SIGTERM');
    expect(await setup.exited).toBe(0);
  }, 300_000);
  afterAll(async () => {
    await killAllServices();
    await database?.drop();
  });

  it('answers a request in flight in full when it ends within the deadline, then exits 0', async () => {
    const server = await serve('drain', '30');
    const { status, stream } = await Stream.open(
      `${server.url}${API_PREFIX}/dashboards/${dashboardId}/data`,
      token,
      heatmaps(10),
    );
    expect(status).toBe(200);
    // The versions line comes once the request is admitted and its work begun.
    expect(await stream.until(1)).toBe(true);
    server.child.kill('SIGTERM');
    expect(await stream.rest()).toBe('ended');
    const slots = stream.lines.slice(1);
    // Ten heatmaps (about 2 s): still computing when the signal came, all answered.
    expect(new Set(slots.map((line) => line.component_id)).size).toBe(10);
    expect(slots.every((line) => line.data?.error === undefined)).toBe(true);
    expect(await server.exited).toBe(0);
  }, 120_000);

  it('interrupts what still runs at the deadline, and exits 0 right after', async () => {
    const server = await serve('deadline', '1');
    const { status, stream } = await Stream.open(
      `${server.url}${API_PREFIX}/dashboards/${dashboardId}/data`,
      token,
      heatmaps(50),
    );
    expect(status).toBe(200);
    expect(await stream.until(1)).toBe(true);
    const copies = join(database.dataDir, 'tmp', 'copies', `${hostname()}-${server.pid}`);
    expect(existsSync(copies)).toBe(true);
    server.child.kill('SIGTERM');
    // The bound is only a timeout: far above the 1 s deadline, far below the 50 heatmaps' own
    // time (about 12 s on 2 CPUs) plus a kept-alive connection's 72 s that once held a process.
    expect(await exitWithin(server, 20_000)).toBe(0);
    expect(await stream.rest()).toBe('ended');
    const slots = stream.lines.slice(1);
    // Every component has its line; those the deadline cut say so.
    expect(slots).toHaveLength(50);
    const cut = slots.filter((line) => line.data?.error?.code === 'service_unavailable');
    expect(cut.length).toBeGreaterThan(0);
    expect(
      slots.every((line) => line.data?.error === undefined || line.data.error.code === 'service_unavailable'),
    ).toBe(true);
    // Its DuckDB closed on the way out: the folder of its native copies went with it.
    expect(existsSync(copies)).toBe(false);
    expect(server.stderr()).not.toContain('shutdown failed');
  }, 120_000);
});
