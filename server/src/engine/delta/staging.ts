import { v7 as uuidv7 } from 'uuid';
import type { SqlConnection } from '../duckdb.js';
import { quoteIdentifier, quoteString } from '../sql.js';
import type { AddAction } from './actions.js';
import type { DeltaEngine } from './engine.js';
import { SchemaMismatch } from './errors.js';
import { dataFileKey, encodeDataPath } from './log-files.js';
import { formatType, type StructField, type StructType, sameType } from './schema.js';
import type { DeltaSnapshot } from './snapshot.js';
import { computeStats } from './stats.js';
import { deltaSchemaOf } from './types.js';

/** A Parquet file on local disk (e.g. from DuckDB `COPY … TO 'x.parquet' (FORMAT parquet)`) to add. */
export interface NewDataFile {
  localPath: string;
  /** Serialized partition values (PROTOCOL.md "Partition Value Serialization"); missing ones are null. */
  partitionValues?: Record<string, string | null>;
  /** The file is the writer's to take: local storage renames it into the table instead of copying it. */
  move?: boolean;
}

export interface StagedFile {
  path: string;
  key: string;
  /** Where DuckDB reads the file now (it may have moved into storage). */
  localPath: string;
  schema: StructType;
  add: AddAction;
  numRecords: number;
}

/** Describes, checks and uploads the new files once; they stay unreferenced until a commit names them. */
export async function stageFiles(
  engine: DeltaEngine,
  connection: SqlConnection,
  root: string,
  files: readonly NewDataFile[],
  partitionColumns: readonly string[],
  indexedColumns: number,
  now: () => number,
): Promise<StagedFile[]> {
  const staged: StagedFile[] = [];
  for (const file of files) {
    const source = `read_parquet(${quoteString(file.localPath)}, hive_partitioning = false)`;
    const columns = await connection.describe(`SELECT * FROM ${source}`);
    const schema = deltaSchemaOf(columns);
    for (const column of partitionColumns) {
      if (schema.fields.some((field) => field.name.toLowerCase() === column.toLowerCase())) {
        throw new SchemaMismatch(`data file ${file.localPath} holds the partition column ${column}`);
      }
    }
    for (const column of Object.keys(file.partitionValues ?? {})) {
      if (!partitionColumns.includes(column)) throw new SchemaMismatch(`${column} is not a partition column`);
    }
    const { stats, numRecords } = await computeStats(connection, file.localPath, columns, indexedColumns);
    const path = `part-${uuidv7()}.parquet`;
    const key = dataFileKey(root, path);
    const { size } = await engine.storage.putFile(key, file.localPath, { move: file.move === true });
    const partitionValues = Object.fromEntries(
      partitionColumns.map((column) => [column, file.partitionValues?.[column] ?? null]),
    );
    staged.push({
      path,
      key,
      localPath: (file.move ? engine.storage.localPath(key) : null) ?? file.localPath,
      schema,
      numRecords,
      add: { path: encodeDataPath(path), partitionValues, size, modificationTime: now(), dataChange: true, stats },
    });
  }
  return staged;
}

function findField(schema: StructType, name: string): StructField | undefined {
  return schema.fields.find((field) => field.name.toLowerCase() === name.toLowerCase());
}

/** The schema of the new version: the one given (`declared`, see `CommitRequest.schema`), checked, or one derived. */
export function resolveSchema(
  current: DeltaSnapshot | null,
  declared: StructType | undefined,
  files: readonly StagedFile[],
  replacingAll: boolean,
  partitionColumns: readonly string[],
): StructType {
  if (declared !== undefined) {
    for (const file of files) {
      for (const field of file.schema.fields) {
        const given = findField(declared, field.name);
        if (given === undefined || !sameType(given.type, field.type)) {
          throw new SchemaMismatch(
            `column ${field.name} (${formatType(field.type)}) of a new file is not in the given schema${given === undefined ? '' : ` as ${formatType(given.type)}`}`,
          );
        }
      }
    }
    return declared;
  }
  const keepCurrent = current !== null && (!replacingAll || files.length === 0);
  const fields: StructField[] = keepCurrent ? [...current.schema.fields] : [];
  for (const file of files) {
    for (const field of file.schema.fields) {
      const existing = fields.find((candidate) => candidate.name.toLowerCase() === field.name.toLowerCase());
      if (existing === undefined) fields.push(field);
      else if (!sameType(existing.type, field.type)) {
        throw new SchemaMismatch(
          `column ${field.name} is ${formatType(existing.type)} in the table but ${formatType(field.type)} in a new file`,
        );
      }
    }
  }
  for (const column of partitionColumns) {
    if (!fields.some((field) => field.name === column)) {
      fields.push({ name: column, type: 'string', nullable: true, metadata: {} });
    }
  }
  return { type: 'struct', fields };
}

/** Refuses NULLs in columns the schema declares non-nullable (a writer-version-2 requirement). */
export async function assertNotNull(connection: SqlConnection, schema: StructType, files: readonly StagedFile[]) {
  const required = schema.fields.filter((field) => !field.nullable);
  if (required.length === 0) return;
  for (const file of files) {
    const source = `read_parquet(${quoteString(file.localPath)}, hive_partitioning = false)`;
    const present = new Set((await connection.describe(`SELECT * FROM ${source}`)).map((column) => column.name));
    const checks = required.map((field) =>
      present.has(field.name) ? `count(*) FILTER (WHERE ${quoteIdentifier(field.name)} IS NULL)` : 'count(*)',
    );
    const [row] = await connection.query(`SELECT [${checks.join(', ')}]::VARCHAR[] AS nulls FROM ${source}`);
    const nulls = (row?.nulls ?? []) as string[];
    required.forEach((field, index) => {
      if (nulls[index] !== '0') throw new SchemaMismatch(`column ${field.name} is not nullable but has NULLs`);
    });
  }
}
