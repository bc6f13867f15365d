import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryCommitClaims } from '../../src/engine/delta/commit-claims.js';
import { createDeltaEngine } from '../../src/engine/delta/engine.js';
import { MAX_SCAN_GROUPS } from '../../src/engine/delta/reader.js';
import { DeltaTable } from '../../src/engine/delta/table.js';
import { DuckDB, type SqlConnection } from '../../src/engine/duckdb.js';
import { quoteString } from '../../src/engine/sql.js';
import { LocalStorage } from '../../src/storage/local.js';

/**
 * A table of one file per partition value, as an image collection is (one file per image): with
 * more groups than MAX_SCAN_GROUPS the scan reads every file with one `read_parquet`, since DuckDB
 * keeps each `read_parquet` of a query open and 10,000 of them ran out of file descriptors.
 */

let duckdb: DuckDB;
let connection: SqlConnection;
let dir: string;

beforeAll(async () => {
  duckdb = await DuckDB.open({ threads: 2 });
  connection = await duckdb.connect();
  dir = await mkdtemp(join(tmpdir(), 'delta-many-files-'));
  await mkdir(join(dir, 'staging'));
});

afterAll(async () => {
  connection.close();
  duckdb.close();
  await rm(dir, { recursive: true, force: true });
});

/** One Parquet file of one row, `id` = index; every other file also has a `note`. */
async function oneRowFile(index: number): Promise<string> {
  const path = join(dir, 'staging', `${randomUUID()}.parquet`);
  const note = index % 2 === 0 ? '' : `, 'odd' AS note`;
  await connection.run(`COPY (SELECT ${index}::BIGINT AS id${note}) TO ${quoteString(path)} (FORMAT parquet)`);
  return path;
}

describe('a table of more partition groups than one scan opens separately', () => {
  it('reads every file with one read_parquet, each row with its own partition value, in file order', async () => {
    const storage = new LocalStorage(join(dir, 'storage'));
    const engine = createDeltaEngine({ storage, duckdb, tempDirectory: dir });
    const table = new DeltaTable(engine, new InMemoryCommitClaims(), 'many', 'deltatables/many');
    const count = MAX_SCAN_GROUPS + 2;
    const add = [];
    for (let index = 0; index < count; index++) {
      // One file without a partition value: NULL, as the log says.
      const part = index === 3 ? null : `p${index}`;
      add.push({ localPath: await oneRowFile(index), partitionValues: { part } });
    }
    await table.commit({
      operation: 'WRITE',
      partitionColumns: ['part'],
      schema: {
        type: 'struct',
        fields: [
          { name: 'id', type: 'long', nullable: true, metadata: {} },
          { name: 'note', type: 'string', nullable: true, metadata: {} },
          { name: 'part', type: 'string', nullable: true, metadata: {} },
        ],
      },
      add,
    });
    const snapshot = await table.snapshot({});
    expect(snapshot.files).toHaveLength(count);
    const scan = await table.scan(connection, snapshot);
    try {
      expect(scan.sql.match(/read_parquet\(/g)).toHaveLength(1);
      const rows = (await connection.query(`SELECT id, note, part FROM (${scan.sql})`)) as {
        id: string;
        note: string | null;
        part: string | null;
      }[];
      expect(rows).toHaveLength(count);
      // In the order of the snapshot's files, each with its file's partition value.
      const byFile = snapshot.files.map((file) => file.partitionValues.part ?? null);
      expect(rows.map((row) => row.part)).toEqual(byFile);
      for (const row of rows) {
        // BIGINT comes back as a string.
        const id = Number(row.id);
        expect(row.part).toBe(id === 3 ? null : `p${id}`);
        expect(row.note).toBe(id % 2 === 0 ? null : 'odd');
      }
    } finally {
      scan.release();
    }
  });
});
