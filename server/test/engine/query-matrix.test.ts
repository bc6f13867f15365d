import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withinBounds } from '../../src/engine/bounded-work.js';
import { DuckDB, type SqlConnection } from '../../src/engine/duckdb.js';
import { workBounds } from './support.js';

/**
 * SqlConnection.queryMatrix: a last column of double lists read into one typed array; queryLists:
 * every column of double lists read into a typed array per row.
 */

let duckdb: DuckDB;

beforeAll(async () => {
  duckdb = await DuckDB.open({ threads: 1 });
});

afterAll(() => {
  duckdb?.close();
});

describe('queryMatrix', () => {
  it('reads the lists row by row, NaN for a null, non-finite or missing item', async () => {
    const { rows, values, width } = await duckdb.withConnection((connection) =>
      connection.queryMatrix(
        "SELECT * FROM (VALUES (1, $1, [1.5, NULL, 3.0]), (2, NULL, [CAST('NaN' AS DOUBLE), -2.25]), " +
          "(3, 'c', NULL), (4, 'd', [CAST('inf' AS DOUBLE), 0.0, 1e300])) AS t(i, label, means) ORDER BY i",
        ['a'],
      ),
    );
    expect(rows).toEqual([
      { i: 1, label: 'a' },
      { i: 2, label: null },
      { i: 3, label: 'c' },
      { i: 4, label: 'd' },
    ]);
    expect(width).toBe(3);
    expect([...values]).toEqual([
      1.5,
      Number.NaN,
      3,
      Number.NaN,
      -2.25,
      Number.NaN,
      ...Array(3).fill(Number.NaN),
      Number.NaN,
      0,
      1e300,
    ]);
  });

  it('reads rows beyond one chunk in order, and no rows as an empty matrix', async () => {
    const { rows, values, width } = await duckdb.withConnection((connection) =>
      connection.queryMatrix('SELECT i, [i, i / 4] AS pair FROM range(5000) AS t(i) ORDER BY i'),
    );
    expect(rows).toHaveLength(5000);
    expect(width).toBe(2);
    expect(values[2 * 4999]).toBe(4999);
    expect(values[2 * 2049 + 1]).toBe(2049 / 4);
    const empty = await duckdb.withConnection((connection) => connection.queryMatrix('SELECT [1.0] AS x LIMIT 0'));
    expect(empty).toEqual({ rows: [], values: new Float64Array(0), width: 0 });
  });

  it('refuses a last column that is not a list of doubles', async () => {
    await expect(duckdb.withConnection((connection) => connection.queryMatrix("SELECT ['a'] AS x"))).rejects.toThrow(
      /not a list of doubles/,
    );
  });
});

describe('queryLists', () => {
  it('reads each column of double lists per row, NaN for a null or non-finite item, the rest as query does', async () => {
    const { rows, lists } = await duckdb.withConnection((connection) =>
      connection.queryLists(
        "SELECT * FROM (VALUES (1, 'a', [1.5::DOUBLE, NULL], [CAST('inf' AS DOUBLE)]), (2, NULL, NULL, [0.0::DOUBLE, 2.0, -1e300])) " +
          'AS t(i, label, lows, highs) ORDER BY i',
      ),
    );
    expect(rows).toEqual([
      { i: 1, label: 'a' },
      { i: 2, label: null },
    ]);
    expect(
      lists.map((row) => Object.fromEntries(Object.entries(row).map(([name, list]) => [name, [...list]]))),
    ).toEqual([
      { lows: [1.5, Number.NaN], highs: [Number.NaN] },
      { lows: [], highs: [0, 2, -1e300] },
    ]);
  });

  it('reads rows beyond one chunk in order, and leaves other lists to query', async () => {
    const { rows, lists } = await duckdb.withConnection((connection) =>
      connection.queryLists(
        "SELECT CAST(i AS INTEGER) AS i, ['x'] AS words, [i / 1, i / 2] AS pair FROM range(5000) AS t(i) ORDER BY i",
      ),
    );
    expect(rows).toHaveLength(5000);
    expect(rows[4999]).toEqual({ i: 4999, words: ['x'] });
    expect([...(lists[2049]?.pair ?? [])]).toEqual([2049, 2049 / 2]);
    expect(lists[4999]?.words).toBeUndefined();
  });
});

describe('the values a request reads', () => {
  const bounded = (maxCells: number) => workBounds({ maxCells }).bounds;
  const lists = 'SELECT i, list_transform(range(200), lambda j: j / 1) AS means FROM range(10) AS t(i)';

  it('count each item of a list read into a typed array', async () => {
    const reads: ((connection: SqlConnection) => Promise<unknown>)[] = [
      (connection: SqlConnection) => connection.queryMatrix(lists),
      (connection: SqlConnection) => connection.queryLists(lists),
    ];
    for (const read of reads) {
      const bounds = bounded(1000);
      await expect(
        duckdb.withConnection((connection) => withinBounds(bounds, () => read(connection))),
      ).rejects.toMatchObject({ code: 'request_too_large' });
    }
    const bounds = bounded(3000);
    await duckdb.withConnection((connection) => withinBounds(bounds, () => connection.queryLists(lists)));
    expect(bounds.cellsRead).toBe(10 + 10 * 200);
  });
});
