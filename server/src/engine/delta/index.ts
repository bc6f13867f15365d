export type {
  AddAction,
  CommitInfoAction,
  LogAction,
  MetadataAction,
  ProtocolAction,
  RemoveAction,
  TxnAction,
} from './actions.js';
export { parseCommit, serializeCommit } from './actions.js';
export { readCheckpoint } from './checkpoint-reader.js';
export { type CheckpointResult, writeCheckpoint } from './checkpoint-writer.js';
export { type CommitClaims, InMemoryCommitClaims } from './commit-claims.js';
export { createDeltaEngine, type DeltaEngine } from './engine.js';
export {
  CommitConflict,
  DeltaError,
  DeltaLogCorrupt,
  DeltaTableNotFound,
  DeltaVersionNotFound,
  SchemaMismatch,
  UnsupportedTableFeature,
} from './errors.js';
export { type DeltaCommitsTable, KyselyCommitClaims } from './kysely-commit-claims.js';
export { createDeltaView, type DeltaScan, type DeltaView, openScan, type ParquetColumnsMemo } from './reader.js';
export type { ArrayType, DeltaType, MapType, StructField, StructType } from './schema.js';
export { parseSchemaString, serializeSchema } from './schema.js';
export {
  type DeltaFile,
  type DeltaSnapshot,
  latestVersion,
  loadSnapshot,
  type SnapshotOptions,
  type Tombstone,
} from './snapshot.js';
export { computeStats, type FileStats, parseStats } from './stats.js';
export { DeltaTable } from './table.js';
export { deltaSchemaOf, sqlTypeOf, writableSelectList } from './types.js';
export { type VacuumOptions, type VacuumResult, vacuum } from './vacuum.js';
export { type CommitOptions, type CommitRequest, type CommitResult, commit, type NewDataFile } from './writer.js';
