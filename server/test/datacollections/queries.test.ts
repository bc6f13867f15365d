import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_PREFIX } from '@service/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN,
  type Answer,
  call,
  createUser,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';
import { quoteIdentifier, quoteString } from '../../src/engine/sql.js';

/** A column name that looks like SQL: it must be quoted as data, never run. */
const WEIRD = 'we"ird; DROP TABLE x;--';
const SPECIES = ['Adelie', 'Gentoo', 'Chinstrap'] as const;
const ISLANDS = ['Biscoe', 'Dream', 'Torgersen', 'Biscoe'] as const;
const FIRST = 300;
const SECOND = 20;

type Value = string | number | boolean | null | string[];
type Penguin = Record<string, Value>;

/** Row i of the table, as the API answers it (integers as numbers, decimals as strings, ISO times). */
function penguin(i: number): Penguin {
  const day = 1 + (i % 30);
  return {
    id: i,
    species: i % 17 === 0 ? null : SPECIES[i % 3]!,
    island: ISLANDS[i % 4]!,
    mass: i % 11 === 0 ? null : 3000 + ((i * 37) % 1500) + 0.5,
    flipper: 170 + (i % 60),
    price: `${i % 100}.25`,
    observed: `2024-01-${String(day).padStart(2, '0')}`,
    at: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString().replace('.000Z', 'Z'),
    ok: i % 13 === 0 ? null : i % 2 === 0,
    tags: i % 7 === 0 ? null : i % 5 === 0 ? [] : [`t${i % 2}`],
    [WEIRD]: `w${i % 5}`,
  };
}

const COLUMN_TYPES: [string, string, string][] = [
  ['id', 'BIGINT', 'long'],
  ['species', 'VARCHAR', 'string'],
  ['island', 'VARCHAR', 'string'],
  ['mass', 'DOUBLE', 'double'],
  ['flipper', 'INTEGER', 'integer'],
  ['price', 'DECIMAL(10,2)', 'decimal(10,2)'],
  ['observed', 'DATE', 'date'],
  ['at', 'TIMESTAMPTZ', 'timestamp'],
  ['ok', 'BOOLEAN', 'boolean'],
  ['tags', 'VARCHAR[]', 'array<string>'],
  [WEIRD, 'VARCHAR', 'string'],
];
const NAMES = COLUMN_TYPES.map(([name]) => name);

const range = (from: number, count: number) => Array.from({ length: count }, (_, index) => penguin(from + index));
const ALL = range(0, FIRST + SECOND);

/** Orders like the server: nulls last in both directions. */
function compare(a: Value | undefined, b: Value | undefined): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  const x = typeof a === 'string' && /^\d+\.\d+$/.test(a) ? Number(a) : a;
  const y = typeof b === 'string' && /^\d+\.\d+$/.test(b) ? Number(b) : b;
  return x < y ? -1 : x > y ? 1 : 0;
}

function sortRows(rows: Penguin[], keys: [string, 'asc' | 'desc'][]): Penguin[] {
  return [...rows].sort((a, b) => {
    for (const [column, direction] of keys) {
      const x = a[column] ?? null;
      const y = b[column] ?? null;
      if (x === null || y === null) {
        const nulls = compare(x, y);
        if (nulls !== 0) return nulls;
        continue;
      }
      const order = compare(x, y) * (direction === 'desc' ? -1 : 1);
      if (order !== 0) return order;
    }
    return 0;
  });
}

/** DuckDB's quantile_cont: linear interpolation at (n - 1) * q. */
function quantile(values: number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

const numbers = (rows: Penguin[], column: string) =>
  rows.map((row) => row[column]).filter((value): value is number => typeof value === 'number');
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const std = (values: number[]) => {
  const m = mean(values);
  return Math.sqrt(values.reduce((sum, value) => sum + (value - m) ** 2, 0) / (values.length - 1));
};
const cents = (rows: Penguin[]) => rows.reduce((sum, row) => sum + Math.round(Number(row.price) * 100), 0);
const decimal = (centsValue: number) => `${Math.floor(centsValue / 100)}.${String(centsValue % 100).padStart(2, '0')}`;

interface TableAnswer {
  version: number | null;
  columns: { name: string; type: string; nullable?: boolean; description?: string | null }[];
  rows: Penguin[];
  total: number;
  limit: number;
  skip: number;
  truncated: boolean;
}
interface Problem {
  code: string;
  detail: string;
  errors?: { path: string; message: string }[];
}

describeEachDialect('data collection queries', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let vic: Session;
  let oscar: Session;
  let staging: string;
  /** The collection with two commits (300 rows, then 20 more). */
  let id: string;
  /** A collection without a table yet. */
  let emptyId: string;

  /** Writes rows to a Parquet file through DuckDB, as ingestion does. */
  async function parquet(rows: Penguin[]): Promise<string> {
    const json = join(staging, `${rows[0]!.id}.ndjson`);
    await writeFile(json, rows.map((row) => JSON.stringify(row)).join('\n'));
    const path = join(staging, `${rows[0]!.id}.parquet`);
    const columns = COLUMN_TYPES.map(([name, type]) => `${quoteString(name)}: ${quoteString(type)}`).join(', ');
    await server.context.duckdb.withConnection((connection) =>
      connection.run(
        `COPY (SELECT * FROM read_json(${quoteString(json)}, format = 'newline_delimited', columns = {${columns}})) ` +
          `TO ${quoteString(path)} (FORMAT parquet)`,
      ),
    );
    return path;
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    staging = await mkdtemp(join(tmpdir(), 'queries-test-'));
    const admin = await login(server, ADMIN.email, ADMIN.password);
    ada = await createUser(server, admin.access_token, 'ada@example.org');
    vic = await createUser(server, admin.access_token, 'vic@example.org');
    oscar = await createUser(server, admin.access_token, 'oscar@example.org');
    const token = ada.access_token;
    const project = await call<{ project_id: string }>(server, 'POST', '/projects', {
      token,
      json: { name: 'Penguins' },
    });
    const shared = await call(server, 'PUT', `/projects/${project.body.project_id}/permissions`, {
      token,
      json: { owners: ['ada@example.org'], editors: [], viewers: ['vic@example.org'], is_public: false },
    });
    expect(shared.status).toBe(200);
    const workflow = await call<{ workflow_id: string }>(
      server,
      'POST',
      `/projects/${project.body.project_id}/workflows`,
      { token, json: { name: 'measure' } },
    );
    const collection = (tag: string) =>
      call<{ data_collection_id: string }>(server, 'POST', `/workflows/${workflow.body.workflow_id}/datacollections`, {
        token,
        json: {
          tag,
          pattern: 'penguins\\.csv',
          format: 'csv',
          columns: { id: 'Row number', species: 'Penguin species' },
        },
      });
    id = (await collection('penguins')).body.data_collection_id;
    emptyId = (await collection('nothing-yet')).body.data_collection_id;
    const table = server.context.tableOf(id);
    await table.commit({ operation: 'WRITE', add: [{ localPath: await parquet(range(0, FIRST)) }] });
    await table.commit({ operation: 'WRITE', add: [{ localPath: await parquet(range(FIRST, SECOND)) }] });
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
    if (staging) await rm(staging, { recursive: true, force: true });
  });

  /** `token: null` calls anonymously. */
  const get = <T = TableAnswer>(path: string, token: string | null = ada.access_token) =>
    call<T>(server, 'GET', path, token === null ? {} : { token });
  const aggregate = <T = TableAnswer>(json: unknown, token = ada.access_token, target = id) =>
    call<T>(server, 'POST', `/datacollections/${target}/aggregate`, { token, json });
  const filtersParam = (filters: unknown) => encodeURIComponent(JSON.stringify(filters));
  const expectRefused = (answer: Answer<unknown>, path: string, naming: string) => {
    expect(answer.status, answer.text).toBe(400);
    const body = answer.body as Problem;
    expect(body.code).toBe('validation_failed');
    expect(body.detail).toContain(naming);
    expect(body.errors?.map((error) => error.path)).toContain(path);
  };

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
    expect(answer.body).toEqual({ version: 1, column: 'species', values: expected, truncated: false });

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

    const filtered = await get<{ values: { value: Value; count: number }[] }>(
      `/datacollections/${id}/values/${encodeURIComponent(WEIRD)}?filters=${filtersParam([
        { column: 'island', op: 'eq', value: 'Dream' },
      ])}`,
    );
    const dream = ALL.filter((row) => row.island === 'Dream');
    expect(filtered.body.values.reduce((sum, value) => sum + value.count, 0)).toBe(dream.length);

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

  it('refuses unknown columns, naming them', async () => {
    expectRefused(await get(`/datacollections/${id}/preview?sort=id:asc,nope:desc`), 'querystring.sort', '"nope"');
    expectRefused(
      await get(`/datacollections/${id}/preview?filters=${filtersParam([{ column: 'nope', op: 'is_null' }])}`),
      'querystring.filters[0].column',
      '"nope"',
    );
    expectRefused(
      await aggregate({ group_by: ['island', 'nope'], aggregates: [{ fn: 'count' }] }),
      'body.group_by[1]',
      '"nope"',
    );
    expectRefused(
      await aggregate({ aggregates: [{ fn: 'sum', column: 'nope' }] }),
      'body.aggregates[0].column',
      '"nope"',
    );
    expectRefused(
      await aggregate({ aggregates: [{ fn: 'count' }], filters: [{ column: 'nope', op: 'eq', value: 1 }] }),
      'body.filters[0].column',
      '"nope"',
    );
    expectRefused(
      await aggregate({ group_by: ['island'], sort: [{ column: 'mass', direction: 'asc' }] }),
      'body.sort[0].column',
      '"mass"',
    );
    expectRefused(
      await aggregate({
        aggregates: [
          { fn: 'count', column: 'id' },
          { fn: 'count', as: 'count_id' },
        ],
      }),
      'body.aggregates[1].as',
      '"count_id"',
    );
    expectRefused(
      await aggregate({ aggregates: [{ fn: 'sum', column: 'species' }] }),
      'body.aggregates[0].fn',
      'species',
    );
    expectRefused(
      await aggregate({ aggregates: [{ fn: 'count' }], filters: [{ column: 'observed', op: 'eq', value: 'soon' }] }),
      'body.filters[0].value',
      '"soon"',
    );
    expectRefused(
      await aggregate({ aggregates: [{ fn: 'count' }], filters: [{ column: 'flipper', op: 'gt', value: 'many' }] }),
      'body.filters[0].value',
      '"many"',
    );
    const noQ = await aggregate<Problem>({ aggregates: [{ fn: 'quantile', column: 'mass' }] });
    expect(noQ.status).toBe(400);
    // (Schema validation may spell the index `.0` or `[0]`.)
    expect(noQ.body.errors?.map((error) => error.path.replace('.0.', '[0].'))).toContain('body.aggregates[0].q');
  });

  it('treats SQL in column names and values as data', async () => {
    const injected = 'island"; DROP VIEW dc_rows; SELECT "1';
    expectRefused(
      await aggregate({ group_by: [injected], aggregates: [{ fn: 'count' }] }),
      'body.group_by[0]',
      JSON.stringify(injected),
    );
    expectRefused(
      await get(`/datacollections/${id}/preview?sort=${encodeURIComponent(`${injected}:asc`)}`),
      'querystring.sort',
      'DROP VIEW',
    );
    const values = ["'; DROP TABLE data_collections; --", "Gentoo' OR '1'='1", '%', '1); SELECT 1; --'];
    for (const value of values) {
      const answer = await aggregate({
        aggregates: [{ fn: 'count' }],
        filters: [{ column: 'species', op: 'eq', value }],
      });
      expect(answer.body.rows).toEqual([{ count: 0 }]);
      const search = await get<{ values: unknown[] }>(
        `/datacollections/${id}/values/species?search=${encodeURIComponent(value)}`,
      );
      expect(search.status).toBe(200);
      expect(search.body.values).toEqual([]);
    }
    const alias = await aggregate({ aggregates: [{ fn: 'count', as: 'n"; DROP TABLE x; --' }] });
    expect(alias.body.rows).toEqual([{ 'n"; DROP TABLE x; --': ALL.length }]);
    // Nothing ran: the table and the collection are intact.
    expect((await get(`/datacollections/${id}/preview?limit=1`)).body.total).toBe(ALL.length);
    expect((await get(`/datacollections/${id}`)).status).toBe(200);
  });

  it('refuses limits out of range', async () => {
    for (const path of [
      `/datacollections/${id}/preview?limit=0`,
      `/datacollections/${id}/preview?limit=1001`,
      `/datacollections/${id}/preview?skip=-1`,
      `/datacollections/${id}/values/species?limit=0`,
      `/datacollections/${id}/values/species?limit=1001`,
      `/datacollections/${id}/download?format=xlsx`,
    ]) {
      const answer = await get<Problem>(path);
      expect(answer.status, path).toBe(400);
      expect(answer.body.code).toBe('validation_failed');
    }
    for (const limit of [0, 10_001]) {
      const answer = await aggregate<Problem>({ aggregates: [{ fn: 'count' }], limit });
      expect(answer.status).toBe(400);
      expect(answer.body.errors?.map((error) => error.path)).toEqual(['body.limit']);
    }
    expect((await aggregate({ aggregates: [{ fn: 'count' }], limit: 10_000 })).status).toBe(200);
    expect((await aggregate({})).status).toBe(400);
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

  it('answers empty for a collection without data, and 404 for its download', async () => {
    const base = `/datacollections/${emptyId}`;
    expect((await get(`${base}/schema`)).body).toEqual({ version: null, columns: [] });
    expect((await get(`${base}/preview?sort=anything:asc`)).body).toEqual({
      version: null,
      columns: [],
      rows: [],
      total: 0,
      limit: 100,
      skip: 0,
    });
    expect((await get(`${base}/summary`)).body).toEqual({ version: null, rows: 0, columns: [] });
    expect((await get(`${base}/values/species`)).body).toEqual({
      version: null,
      column: 'species',
      values: [],
      truncated: false,
    });
    expect((await aggregate({ aggregates: [{ fn: 'count' }] }, ada.access_token, emptyId)).body).toEqual({
      version: null,
      columns: [],
      rows: [],
      truncated: false,
    });
    expect((await get(`${base}/versions`)).body).toEqual({ items: [], total: 0, limit: 50, skip: 0 });
    const download = await get<Problem>(`${base}/download?format=csv`);
    expect(download.status).toBe(404);
    expect(download.body).toMatchObject({ code: 'not_found', detail: 'the data collection has no data yet' });
  });

  it('lets viewers read, hides the collection from others, and asks anonymous callers to sign in', async () => {
    const paths = [
      `/datacollections/${id}/schema`,
      `/datacollections/${id}/preview`,
      `/datacollections/${id}/summary`,
      `/datacollections/${id}/values/species`,
      `/datacollections/${id}/download?format=csv`,
      `/datacollections/${id}/versions`,
    ];
    for (const path of paths) {
      expect((await get(path, vic.access_token)).status, path).toBe(200);
      const hidden = await get<Problem>(path, oscar.access_token);
      expect(hidden.status, path).toBe(404);
      expect(hidden.body.code).toBe('not_found');
      expect((await get(path, null)).status, path).toBe(401);
    }
    const body = { aggregates: [{ fn: 'count' }] };
    expect((await aggregate(body, vic.access_token)).status).toBe(200);
    expect((await aggregate(body, oscar.access_token)).status).toBe(404);
    expect((await call(server, 'POST', `/datacollections/${id}/aggregate`, { json: body })).status).toBe(401);
    const unknown = await get<Problem>('/datacollections/00000000-0000-7000-8000-000000000000/schema');
    expect(unknown.status).toBe(404);
  });
});
