import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withinBounds } from '../../src/engine/bounded-work.js';
import { DuckDB } from '../../src/engine/duckdb.js';
import { MANY_FILES, NativeCopies } from '../../src/engine/native-copies.js';
import { DomainError } from '../../src/errors.js';
import { workBounds } from './support.js';

let duckdb: DuckDB;
let directory: string;

beforeAll(async () => {
  duckdb = await DuckDB.open({ threads: 2 });
  directory = await mkdtemp(join(tmpdir(), 'clustered-copies-'));
  await duckdb.withConnection((connection) =>
    connection.run(
      // Awkward values to cluster by: the widest doubles, infinities, NaN, NULLs, a constant column.
      `CREATE TABLE "rows" AS SELECT i AS "id", CASE i % 7 WHEN 0 THEN 'Infinity'::DOUBLE WHEN 1 THEN -1.7e308 ` +
        `WHEN 2 THEN 1.7e308 WHEN 3 THEN 'NaN'::DOUBLE WHEN 4 THEN NULL ELSE (i * 7919) % 1000 END AS "x", ` +
        `DATE '2020-01-01' + CAST((i * 31) % 400 AS INTEGER) AS "day", 5 AS "same" FROM range(5000) AS t(i)`,
    ),
  );
});

afterAll(async () => {
  duckdb?.close();
  await rm(directory, { recursive: true, force: true });
});

describe('a clustered native copy', () => {
  it('holds every row once, sorted otherwise, with each row’s position in the files beside it', async () => {
    const copies = await NativeCopies.open(duckdb, { directory, minRows: 0, maxCopies: 2 });
    try {
      const source = async () => ({ sql: 'SELECT * FROM memory.main."rows"', release: () => {} });
      const cluster = ['"x"', 'CASE WHEN isfinite("day") THEN epoch("day") END', '"same"'];
      expect(copies.acquire('version', { rows: 5000, files: 1 }, cluster, source)).toBeNull();
      await copies.idle();
      expect(copies.counts).toMatchObject({ built: 1, clustered: 1, failed: 0 });
      const lease = copies.acquire('version', { rows: 5000, files: 1 }, cluster, source);
      if (lease === null) throw new Error('no copy');
      try {
        expect(lease.fileOrder).not.toBe('');
        const [inCopyOrder, inFileOrder] = await duckdb.withConnection(async (connection) => [
          await connection.query(`SELECT "id" FROM ${lease.relation}`),
          await connection.query(
            `SELECT "id", ${lease.fileOrder} AS "p" FROM ${lease.relation} ORDER BY ${lease.fileOrder}`,
          ),
        ]);
        const ids = inCopyOrder.map((row) => Number(row.id));
        expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 5000 }, (_, index) => index));
        expect(ids).not.toEqual([...ids].sort((a, b) => a - b));
        expect(inFileOrder.map((row) => Number(row.id))).toEqual(Array.from({ length: 5000 }, (_, index) => index));
      } finally {
        lease.release();
      }
    } finally {
      await copies.close();
    }
  });
});

describe('a native copy being built unclustered', () => {
  it('is built once more, clustered, as soon as a reader asks for clustering, not at its next read', async () => {
    const copies = await NativeCopies.open(duckdb, { directory, minRows: 0, maxCopies: 2 });
    try {
      const source = async () => ({ sql: 'SELECT * FROM memory.main."rows"', release: () => {} });
      expect(copies.acquire('version', { rows: 5000, files: 1 }, [], source)).toBeNull();
      expect(copies.acquire('version', { rows: 5000, files: 1 }, ['"x"'], source)).toBeNull();
      expect(copies.acquire('version', { rows: 5000, files: 1 }, ['"x"'], source)).toBeNull();
      await copies.idle();
      expect(copies.counts).toMatchObject({ built: 2, clustered: 1, failed: 0 });
      const lease = copies.acquire('version', { rows: 5000, files: 1 }, ['"x"'], source);
      expect(lease?.fileOrder).not.toBe('');
      lease?.release();
      await copies.idle();
      expect(copies.counts).toMatchObject({ built: 2 });
    } finally {
      await copies.close();
    }
  });
});

describe('a native copy of a version of many files', () => {
  it('is built however few rows they hold, and not for as few rows in few files', async () => {
    const copies = await NativeCopies.open(duckdb, { directory, minRows: 1_000_000, maxCopies: 2 });
    try {
      const source = async () => ({ sql: 'SELECT * FROM memory.main."rows"', release: () => {} });
      expect(copies.acquire('few files', { rows: 5000, files: MANY_FILES }, [], source)).toBeNull();
      expect(copies.acquire('many files', { rows: 5000, files: MANY_FILES + 1 }, [], source)).toBeNull();
      await copies.idle();
      expect(copies.counts).toMatchObject({ built: 1, failed: 0 });
      expect(copies.acquire('few files', { rows: 5000, files: MANY_FILES }, [], source)).toBeNull();
      const lease = copies.acquire('many files', { rows: 5000, files: MANY_FILES + 1 }, [], source);
      if (lease === null) throw new Error('no copy');
      try {
        const [counted] = await duckdb.withConnection((connection) =>
          connection.query(`SELECT count(*) AS "n" FROM ${lease.relation}`),
        );
        expect(Number(counted?.n)).toBe(5000);
      } finally {
        lease.release();
      }
    } finally {
      await copies.close();
    }
  });
});

describe('a native copy asked for by a request', () => {
  it('is built outside that request’s bounds: neither stopped with it nor held to its statement limit', async () => {
    const copies = await NativeCopies.open(duckdb, { directory, minRows: 0, maxCopies: 2 });
    try {
      const source = async () => ({ sql: 'SELECT * FROM memory.main."rows"', release: () => {} });
      const { bounds, controller: request } = workBounds({ statementTimeoutMs: 1, maxCells: 1 });
      expect(
        withinBounds(bounds, () => copies.acquire('version', { rows: 5000, files: 1 }, ['"x"'], source)),
      ).toBeNull();
      // The request ends stopped (its client gone) before the build has begun.
      request.abort(new DomainError('request_timeout', 'the client went away'));
      await copies.idle();
      expect(copies.counts).toMatchObject({ built: 1, failed: 0 });
    } finally {
      await copies.close();
    }
  });
});
