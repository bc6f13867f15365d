import type { ObjectStorage } from '../../storage/storage.js';
import type { DuckDB } from '../duckdb.js';
import type { LocalFileCache } from '../file-cache.js';
import { ObjectFiles } from '../object-files.js';

/** What reading and writing Delta tables needs: the storage, DuckDB, and local files for DuckDB. */
export interface DeltaEngine {
  storage: ObjectStorage;
  duckdb: DuckDB;
  files: ObjectFiles;
  /** Where checkpoints are staged before upload; the OS temporary directory by default. */
  tempDirectory?: string;
}

export function createDeltaEngine(options: {
  storage: ObjectStorage;
  duckdb: DuckDB;
  /** Needed unless the storage is local. */
  cache?: LocalFileCache | null;
  tempDirectory?: string;
}): DeltaEngine {
  return {
    storage: options.storage,
    duckdb: options.duckdb,
    files: new ObjectFiles(options.storage, options.cache ?? null),
    ...(options.tempDirectory === undefined ? {} : { tempDirectory: options.tempDirectory }),
  };
}
