import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentBounds, type WorkBounds, withinBounds } from '../../src/engine/bounded-work.js';
import { DuckDB } from '../../src/engine/duckdb.js';
import { DomainError } from '../../src/errors.js';
import { workBounds } from './support.js';

/** A statement that would run for hours: DuckDB cannot fold it, and checks for interrupts as it goes. */
const ENDLESS = 'SELECT count(*) AS n FROM range(10000000000000) AS t(i) WHERE hash(i) % 7 = 3';

let duckdb: DuckDB;

beforeAll(async () => {
  duckdb = await DuckDB.open({ threads: 1 });
});

afterAll(() => {
  duckdb?.close();
});

function bounds(statementTimeoutMs: number, maxCells = 0) {
  const { bounds: value, controller } = workBounds({ statementTimeoutMs, maxCells });
  return { value, controller };
}

describe('DuckDB statements within request bounds', () => {
  it('interrupts a statement beyond its time limit with time_limit_exceeded', async () => {
    const { value } = bounds(200);
    const failure = await withinBounds(value, () => duckdb.withConnection((c) => c.query(ENDLESS))).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(DomainError);
    expect((failure as DomainError).code).toBe('time_limit_exceeded');
    expect((failure as DomainError).message).toContain('SERVICE_DATA_STATEMENT_TIMEOUT_SECONDS');
  });

  it('interrupts a running statement when the work is stopped, with the reason it was stopped for', async () => {
    const { value, controller } = bounds(0);
    const reason = new DomainError('request_timeout', 'the client went away');
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const statement = withinBounds(value, () =>
      duckdb.withConnection(async (connection) => {
        const pending = connection.query(ENDLESS);
        started();
        return pending;
      }),
    ).catch((error: unknown) => error);
    await running;
    controller.abort(reason);
    // The statement's promise settles only once DuckDB has stopped executing it.
    expect(await statement).toBe(reason);
    // The engine is free: the next statement runs at once.
    expect(await duckdb.withConnection((c) => c.query('SELECT 42 AS n'))).toEqual([{ n: 42 }]);
  });

  it('refuses a statement of work already stopped, without running it', async () => {
    const { value, controller } = bounds(0);
    const reason = new DomainError('service_unavailable', 'the server is shutting down; try again');
    controller.abort(reason);
    const failure = await withinBounds(value, () =>
      duckdb.withConnection((c) => c.run('CREATE TABLE never_made AS SELECT 1 AS n')),
    ).catch((error: unknown) => error);
    expect(failure).toBe(reason);
    const tables = await duckdb.withConnection((c) =>
      c.query("SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 'never_made'"),
    );
    expect(tables).toEqual([{ n: 0 }]);
  });

  it('reads results a chunk at a time, counting the values read against the work’s limit', async () => {
    // 5000 rows of two columns: three chunks of at most 2048 rows.
    const rows = 'SELECT i, i * 2 AS j FROM range(5000) AS t(i)';
    const within = bounds(0, 10_000);
    const all = await withinBounds(within.value, () => duckdb.withConnection((c) => c.query(rows)));
    expect(all).toHaveLength(5000);
    expect(all[4999]).toEqual({ i: '4999', j: '9998' });
    expect(within.value.cellsRead).toBe(10_000);
    expect(within.controller.signal.aborted).toBe(false);

    // One value more than the limit: refused before the chunk that goes beyond is converted, and
    // the whole work is stopped with that reason.
    const beyond = bounds(0, 9_999);
    const failure = await withinBounds(beyond.value, () => duckdb.withConnection((c) => c.query(rows))).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(DomainError);
    expect((failure as DomainError).code).toBe('request_too_large');
    expect((failure as DomainError).message).toContain('SERVICE_DATA_MAX_ANSWER_CELLS');
    expect(beyond.controller.signal.reason).toBe(failure);
  });

  it('carries the bounds into work the request starts, and none outside it', async () => {
    const { value } = bounds(1000);
    expect(currentBounds()).toBeUndefined();
    const seen = await withinBounds(value, async () => {
      await Promise.resolve();
      return new Promise<WorkBounds | undefined>((resolve) => setImmediate(() => resolve(currentBounds())));
    });
    expect(seen).toBe(value);
    // Outside any request, statements are not bounded (maintenance, ingestion).
    expect(await duckdb.withConnection((c) => c.query('SELECT 1 AS n'))).toEqual([{ n: 1 }]);
  });
});
