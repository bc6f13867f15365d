import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import {
  ADMIN,
  type Answer,
  call,
  createUser,
  type Dialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';
import { quoteString } from '../../src/engine/sql.js';

/** A column name that looks like SQL: it must be quoted as data, never run. */
export const WEIRD = 'we"ird; DROP TABLE x;--';
export const SPECIES = ['Adelie', 'Gentoo', 'Chinstrap'] as const;
export const ISLANDS = ['Biscoe', 'Dream', 'Torgersen', 'Biscoe'] as const;
export const FIRST = 300;
export const SECOND = 20;

export type Value = string | number | boolean | null | string[];
export type Penguin = Record<string, Value>;

/** Row i of the table, as the API answers it (integers as numbers, decimals as strings, ISO times). */
export function penguin(i: number): Penguin {
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

export const COLUMN_TYPES: [string, string, string][] = [
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
export const NAMES = COLUMN_TYPES.map(([name]) => name);

export const range = (from: number, count: number) =>
  Array.from({ length: count }, (_, index) => penguin(from + index));
export const ALL = range(0, FIRST + SECOND);

/** Orders like the server: nulls last in both directions. */
export function compare(a: Value | undefined, b: Value | undefined): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  const x = typeof a === 'string' && /^\d+\.\d+$/.test(a) ? Number(a) : a;
  const y = typeof b === 'string' && /^\d+\.\d+$/.test(b) ? Number(b) : b;
  return x < y ? -1 : x > y ? 1 : 0;
}

export function sortRows(rows: Penguin[], keys: [string, 'asc' | 'desc'][]): Penguin[] {
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
export function quantile(values: number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

export const numbers = (rows: Penguin[], column: string) =>
  rows.map((row) => row[column]).filter((value): value is number => typeof value === 'number');
export const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
export const std = (values: number[]) => {
  const m = mean(values);
  return Math.sqrt(values.reduce((sum, value) => sum + (value - m) ** 2, 0) / (values.length - 1));
};
export const cents = (rows: Penguin[]) => rows.reduce((sum, row) => sum + Math.round(Number(row.price) * 100), 0);
export const decimal = (centsValue: number) =>
  `${Math.floor(centsValue / 100)}.${String(centsValue % 100).padStart(2, '0')}`;

export interface TableAnswer {
  version: number | null;
  columns: { name: string; type: string; nullable?: boolean; description?: string | null }[];
  rows: Penguin[];
  total: number;
  limit: number;
  skip: number;
  truncated: boolean;
}
export interface Problem {
  code: string;
  detail: string;
  errors?: { path: string; message: string }[];
}

/**
 * A server per dialect with the penguins table (two commits: 300 rows, then 20 more), a collection
 * without a table, its owner ada, vic who may read it and oscar who may not. Registers its own
 * beforeAll/afterAll; read the state through `current()` once they have run.
 */
export function penguinsFixture(dialect: Dialect) {
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

  return {
    current: () => ({ server, ada, vic, oscar, staging, id, emptyId }),
    get,
    aggregate,
    filtersParam,
    expectRefused,
  };
}
