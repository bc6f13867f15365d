import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { API_PREFIX } from '@service/server';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { quoteIdentifier, quoteString } from '../../src/engine/sql.js';
import {
  ALL,
  COLUMN_TYPES,
  cents,
  compare,
  decimal,
  FIRST,
  mean,
  NAMES,
  numbers,
  type Penguin,
  type Problem,
  penguin,
  penguinsFixture,
  quantile,
  SECOND,
  sortRows,
  std,
  type Value,
  WEIRD,
} from './penguins-fixture.js';

describeEachDialect('data collection queries', (dialect) => {
  const fixture = penguinsFixture(dialect);
  const { get, aggregate, filtersParam } = fixture;
  let server: TestServer;
  let ada: Session;
  let staging: string;
  let id: string;
  beforeAll(() => {
    ({ server, ada, staging, id } = fixture.current());
  });

  it('describes the schema with Delta types and the collection’s descriptions', async () => {
    const answer = await get(`/datacollections/${id}/schema`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      version: 1,
      columns: COLUMN_TYPES.map(([name, , type]) => ({
        name,
        type,
        nullable: true,
        description: name === 'id' ? 'Row number' : name === 'species' ? 'Penguin species' : null,
      })),
    });
    expect((await get(`/datacollections/${id}/schema?version=0`)).body.version).toBe(0);
  });

  it('pages through rows sorted on several columns, ties broken by the other columns', async () => {
    const expected = sortRows(ALL, [
      ['island', 'desc'],
      ['mass', 'asc'],
      ['id', 'asc'],
    ]);
    const pages: Penguin[] = [];
    for (let skip = 0; skip < ALL.length; skip += 100) {
      const answer = await get(`/datacollections/${id}/preview?sort=island:desc,mass&limit=100&skip=${skip}`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toMatchObject({ version: 1, total: ALL.length, limit: 100, skip });
      pages.push(...answer.body.rows);
    }
    expect(pages).toEqual(expected);

    const answer = await get(`/datacollections/${id}/preview?sort=species:asc,id:desc&limit=7&skip=5`);
    expect(answer.body.rows).toEqual(
      sortRows(ALL, [
        ['species', 'asc'],
        ['id', 'desc'],
      ]).slice(5, 12),
    );
    expect(answer.body.columns.map((column) => column.name)).toEqual(NAMES);
    // The default page is 100 rows; the weird column sorts like any other.
    const byWeird = await get(`/datacollections/${id}/preview?sort=${encodeURIComponent(`${WEIRD}:desc,id:asc`)}`);
    expect(byWeird.body.rows).toEqual(
      sortRows(ALL, [
        [WEIRD, 'desc'],
        ['id', 'asc'],
      ]).slice(0, 100),
    );
  });

  it('filters the preview and reads earlier versions', async () => {
    const filters = [{ column: 'species', op: 'eq', value: 'Gentoo' }];
    const answer = await get(`/datacollections/${id}/preview?sort=id:asc&filters=${filtersParam(filters)}&limit=5`);
    const gentoo = ALL.filter((row) => row.species === 'Gentoo');
    expect(answer.body.total).toBe(gentoo.length);
    expect(answer.body.rows).toEqual(gentoo.slice(0, 5));

    const old = await get(`/datacollections/${id}/preview?version=0&sort=id:desc&limit=1`);
    expect(old.body).toMatchObject({ version: 0, total: FIRST, rows: [penguin(FIRST - 1)] });
    const latest = await get(`/datacollections/${id}/preview?sort=id:desc&limit=1`);
    expect(latest.body).toMatchObject({ version: 1, total: FIRST + SECOND, rows: [penguin(FIRST + SECOND - 1)] });
    const missing = await get<Problem>(`/datacollections/${id}/preview?version=7`);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
  });

  it('summarises every column', async () => {
    const answer = await get<{
      version: number;
      rows: number;
      columns: Record<string, unknown>[];
    }>(`/datacollections/${id}/summary`);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.rows).toBe(ALL.length);
    const byName = new Map(answer.body.columns.map((column) => [column.name as string, column]));
    expect([...byName.keys()]).toEqual(NAMES);
    for (const [name, , type] of COLUMN_TYPES) {
      const values = ALL.map((row) => row[name] ?? null).filter((value) => value !== null);
      const nested = name === 'tags';
      const sorted = [...values].sort(compare);
      const summary = byName.get(name)!;
      expect(summary, name).toMatchObject({
        type,
        count: values.length,
        nulls: ALL.length - values.length,
        distinct: new Set(values.map((value) => JSON.stringify(value))).size,
        min: nested ? null : sorted[0],
        max: nested ? null : sorted.at(-1),
      });
      const numeric = name === 'price' ? values.map(Number) : numbers(ALL, name);
      if (['id', 'mass', 'flipper', 'price'].includes(name)) {
        expect(summary.mean as number, name).toBeCloseTo(mean(numeric), 6);
        expect(summary.std as number, name).toBeCloseTo(std(numeric), 6);
      } else {
        expect(summary, name).toMatchObject({ mean: null, std: null });
      }
    }
  });

  it('lists distinct values with counts, most frequent first, capped', async () => {
    const counts = new Map<Value, number>();
    for (const row of ALL) counts.set(row.species ?? null, (counts.get(row.species ?? null) ?? 0) + 1);
    const expected = [...counts]
      .map(([value, count]) => ({ value, count }))
      .sort((a, b) => b.count - a.count || compare(a.value, b.value));
    const answer = await get<{ column: string; values: { value: Value; count: number }[]; truncated: boolean }>(
      `/datacollections/${id}/values/species`,
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({
      version: 1,
      column: 'species',
      values: expected,
      truncated: false,
      total_rows: ALL.length,
    });

    const capped = await get<{ values: unknown[]; truncated: boolean }>(
      `/datacollections/${id}/values/species?limit=2`,
    );
    expect(capped.body).toMatchObject({ values: expected.slice(0, 2), truncated: true });
    const exact = await get<{ truncated: boolean }>(`/datacollections/${id}/values/species?limit=4`);
    expect(exact.body.truncated).toBe(false);

    const searched = await get<{ values: { value: Value; count: number }[] }>(
      `/datacollections/${id}/values/species?search=GE`,
    );
    expect(searched.body.values).toEqual([{ value: 'Gentoo', count: counts.get('Gentoo') }]);
    // A share is of the table: the total leaves the search aside, even when it matches nothing.
    expect(searched.body).toMatchObject({ total_rows: ALL.length });
    const none = await get<{ values: unknown[]; total_rows: number }>(
      `/datacollections/${id}/values/species?search=no-such-species`,
    );
    expect(none.body).toMatchObject({ values: [], total_rows: ALL.length });

    const filtered = await get<{ values: { value: Value; count: number }[] }>(
      `/datacollections/${id}/values/${encodeURIComponent(WEIRD)}?filters=${filtersParam([
        { column: 'island', op: 'eq', value: 'Dream' },
      ])}`,
    );
    const dream = ALL.filter((row) => row.island === 'Dream');
    expect(filtered.body.values.reduce((sum, value) => sum + value.count, 0)).toBe(dream.length);
    expect(filtered.body).toMatchObject({ total_rows: dream.length });

    // Integers are numbers; the order breaks ties by value.
    const ids = await get<{ values: { value: Value; count: number }[]; truncated: boolean }>(
      `/datacollections/${id}/values/id?limit=3`,
    );
    expect(ids.body).toMatchObject({
      values: [
        { value: 0, count: 1 },
        { value: 1, count: 1 },
        { value: 2, count: 1 },
      ],
      truncated: true,
    });

    const unknown = await get<Problem>(`/datacollections/${id}/values/nope`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toContain('"nope"');
  });

  it('groups and aggregates with every function', async () => {
    const answer = await aggregate({
      group_by: ['island'],
      aggregates: [
        { fn: 'count' },
        { fn: 'count', column: 'mass' },
        { fn: 'sum', column: 'flipper' },
        { fn: 'sum', column: 'mass' },
        { fn: 'sum', column: 'price' },
        { fn: 'mean', column: 'mass', as: 'average mass' },
        { fn: 'min', column: 'at' },
        { fn: 'max', column: 'observed' },
        { fn: 'median', column: 'mass' },
        { fn: 'quantile', column: 'flipper', q: 0.9 },
        { fn: 'median', column: 'observed' },
        { fn: 'nunique', column: 'species' },
      ],
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.columns).toEqual([
      { name: 'island', type: 'string' },
      { name: 'count', type: 'long' },
      { name: 'count_mass', type: 'long' },
      { name: 'sum_flipper', type: 'long' },
      { name: 'sum_mass', type: 'double' },
      { name: 'sum_price', type: 'decimal(38,2)' },
      { name: 'average mass', type: 'double' },
      { name: 'min_at', type: 'timestamp' },
      { name: 'max_observed', type: 'date' },
      { name: 'median_mass', type: 'double' },
      { name: 'quantile_0.9_flipper', type: 'double' },
      { name: 'median_observed', type: 'date' },
      { name: 'nunique_species', type: 'long' },
    ]);
    expect(answer.body.truncated).toBe(false);
    const islands = [...new Set(ALL.map((row) => row.island as string))].sort();
    expect(answer.body.rows.map((row) => row.island)).toEqual(islands);
    for (const row of answer.body.rows) {
      const group = ALL.filter((penguinRow) => penguinRow.island === row.island);
      const masses = numbers(group, 'mass');
      const observed = group.map((item) => item.observed as string).sort();
      expect(row).toMatchObject({
        count: group.length,
        count_mass: masses.length,
        sum_flipper: numbers(group, 'flipper').reduce((sum, value) => sum + value, 0),
        sum_price: decimal(cents(group)),
        min_at: group.map((item) => item.at as string).sort()[0],
        max_observed: observed.at(-1),
        'quantile_0.9_flipper': quantile(numbers(group, 'flipper'), 0.9),
        nunique_species: new Set(group.map((item) => item.species).filter((value) => value !== null)).size,
      });
      expect(row.sum_mass as number).toBeCloseTo(
        masses.reduce((sum, value) => sum + value, 0),
        6,
      );
      expect(row['average mass'] as number).toBeCloseTo(mean(masses), 6);
      expect(row.median_mass as number).toBeCloseTo(quantile(masses, 0.5)!, 9);
      // Dates take the value at the median rank (no interpolation).
      expect(observed).toContain(row.median_observed);
    }

    const top = await aggregate({
      group_by: ['species', 'ok'],
      aggregates: [{ fn: 'count', as: 'n' }],
      sort: [
        { column: 'n', direction: 'desc' },
        { column: 'species', direction: 'asc' },
        { column: 'ok', direction: 'asc' },
      ],
      limit: 3,
    });
    const groups = new Map<string, Penguin>();
    for (const row of ALL) {
      const key = JSON.stringify([row.species, row.ok]);
      const group = groups.get(key) ?? { species: row.species ?? null, ok: row.ok ?? null, n: 0 };
      group.n = (group.n as number) + 1;
      groups.set(key, group);
    }
    const expected = sortRows(
      [...groups.values()],
      [
        ['n', 'desc'],
        ['species', 'asc'],
        ['ok', 'asc'],
      ],
    );
    expect(top.body).toMatchObject({ rows: expected.slice(0, 3), truncated: true });

    const whole = await aggregate({ aggregates: [{ fn: 'count' }, { fn: 'max', column: 'id' }] });
    expect(whole.body.rows).toEqual([{ count: ALL.length, max_id: ALL.length - 1 }]);
    const distinct = await aggregate({ group_by: [WEIRD] });
    expect(distinct.body.rows).toEqual([0, 1, 2, 3, 4].map((value) => ({ [WEIRD]: `w${value}` })));
  });

  it('applies every filter operator', async () => {
    const cases: [Record<string, unknown>, (row: Penguin) => boolean][] = [
      [{ column: 'species', op: 'eq', value: 'Gentoo' }, (row) => row.species === 'Gentoo'],
      // `ne` and `not_in` keep nulls.
      [{ column: 'species', op: 'ne', value: 'Gentoo' }, (row) => row.species !== 'Gentoo'],
      [{ column: 'flipper', op: 'lt', value: 180 }, (row) => (row.flipper as number) < 180],
      [{ column: 'flipper', op: 'le', value: '180' }, (row) => (row.flipper as number) <= 180],
      [{ column: 'mass', op: 'gt', value: 4000 }, (row) => row.mass !== null && (row.mass as number) > 4000],
      [{ column: 'price', op: 'ge', value: '50.25' }, (row) => Number(row.price) >= 50.25],
      [{ column: 'flipper', op: 'eq', value: 180.5 }, () => false],
      [{ column: 'id', op: 'eq', value: '42' }, (row) => row.id === 42],
      [
        { column: 'island', op: 'in', value: ['Dream', 'Torgersen'] },
        (row) => row.island === 'Dream' || row.island === 'Torgersen',
      ],
      [{ column: 'species', op: 'not_in', value: ['Adelie'] }, (row) => row.species !== 'Adelie'],
      [
        { column: 'species', op: 'not_in', value: ['Adelie', 'Chinstrap'] },
        (row) => row.species !== 'Adelie' && row.species !== 'Chinstrap',
      ],
      [{ column: 'id', op: 'in', value: [3, '7', 11] }, (row) => [3, 7, 11].includes(row.id as number)],
      [
        { column: 'observed', op: 'between', value: ['2024-01-05', '2024-01-10'] },
        (row) => (row.observed as string) >= '2024-01-05' && (row.observed as string) <= '2024-01-10',
      ],
      [
        { column: 'at', op: 'between', value: ['2024-01-02T00:00:00Z', '2024-01-03T12:00:00Z'] },
        (row) => (row.at as string) >= '2024-01-02T00:00:00Z' && (row.at as string) <= '2024-01-03T12:00:00Z',
      ],
      [{ column: 'species', op: 'contains', value: 'TOO' }, (row) => row.species === 'Gentoo'],
      [{ column: 'mass', op: 'is_null' }, (row) => row.mass === null],
      [{ column: 'ok', op: 'not_null' }, (row) => row.ok !== null],
      [{ column: 'ok', op: 'eq', value: true }, (row) => row.ok === true],
      [{ column: 'ok', op: 'eq', value: 'false' }, (row) => row.ok === false],
      [{ column: WEIRD, op: 'eq', value: 'w1' }, (row) => row[WEIRD] === 'w1'],
    ];
    for (const [filter, keep] of cases) {
      const answer = await aggregate({ aggregates: [{ fn: 'count' }], filters: [filter] });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.rows, JSON.stringify(filter)).toEqual([{ count: ALL.filter(keep).length }]);
    }
    // Filters combine with AND.
    const both = await aggregate({
      aggregates: [{ fn: 'count' }],
      filters: [
        { column: 'island', op: 'eq', value: 'Biscoe' },
        { column: 'ok', op: 'eq', value: true },
      ],
    });
    expect(both.body.rows).toEqual([{ count: ALL.filter((row) => row.island === 'Biscoe' && row.ok === true).length }]);
  });

  it('downloads CSV and Parquet as attachments, filtered, and cleans up', async () => {
    const fetchDownload = (query: string) =>
      fetch(`${server.url}${API_PREFIX}/datacollections/${id}/download?${query}`, {
        headers: { authorization: `Bearer ${ada.access_token}` },
      });
    const csv = await fetchDownload('format=csv');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="penguins.csv"');
    const text = await csv.text();
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(ALL.length + 1);
    expect(lines[0]).toBe(`id,species,island,mass,flipper,price,observed,at,ok,tags,"we""ird; DROP TABLE x;--"`);
    const target = join(staging, 'download.csv');
    await writeFile(target, text);
    const fromCsv = await server.context.duckdb.withConnection((connection) =>
      connection.query(
        `SELECT count(*) AS n, sum(id) AS total, count(species) AS species FROM read_csv(${quoteString(target)}, header = true)`,
      ),
    );
    expect(fromCsv).toEqual([
      {
        n: String(ALL.length),
        total: String(ALL.reduce((sum, row) => sum + (row.id as number), 0)),
        species: String(ALL.filter((row) => row.species !== null).length),
      },
    ]);

    const filters = filtersParam([{ column: 'island', op: 'eq', value: 'Dream' }]);
    const parquet = await fetchDownload(`format=parquet&filters=${filters}`);
    expect(parquet.status).toBe(200);
    expect(parquet.headers.get('content-type')).toBe('application/vnd.apache.parquet');
    expect(parquet.headers.get('content-disposition')).toBe('attachment; filename="penguins.parquet"');
    const file = join(staging, 'download.parquet');
    await writeFile(file, Buffer.from(await parquet.arrayBuffer()));
    const rows = await server.context.duckdb.withConnection((connection) =>
      connection.query(
        `SELECT id, price, "at", tags, ${quoteIdentifier(WEIRD)} AS w FROM read_parquet(${quoteString(file)}) ORDER BY id`,
      ),
    );
    const dream = ALL.filter((row) => row.island === 'Dream');
    expect(rows.map((row) => Number(row.id))).toEqual(dream.map((row) => row.id));
    expect(rows[0]).toMatchObject({ price: dream[0]!.price, tags: dream[0]!.tags });

    const old = await fetchDownload('format=csv&version=0');
    expect((await old.text()).trimEnd().split('\n')).toHaveLength(FIRST + 1);

    // Temporary files are removed once sent.
    const downloads = join(server.database.dataDir, 'tmp', 'downloads');
    for (let wait = 0; wait < 50 && (await readdir(downloads)).length > 0; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await readdir(downloads)).toEqual([]);
  });

  it('lists the versions, newest first', async () => {
    const answer = await get<{ items: Record<string, unknown>[]; total: number }>(`/datacollections/${id}/versions`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      total: 2,
      items: [
        { version: 1, operation: 'WRITE', rows: SECOND, files_added: 1, files_removed: 0 },
        { version: 0, operation: 'WRITE', rows: FIRST, files_added: 1, files_removed: 0 },
      ],
    });
    for (const item of answer.body.items) expect(item.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const page = await get<{ items: { version: number }[] }>(`/datacollections/${id}/versions?limit=1&skip=1`);
    expect(page.body.items.map((item) => item.version)).toEqual([0]);
  });
});
