import { z } from 'zod';
import { DeltaLogCorrupt } from './errors.js';

/**
 * The actions of the Delta log (PROTOCOL.md "Actions"), as they appear in JSON commits and, via
 * `to_json`, in checkpoint rows. Optional fields may be absent or an explicit null; unknown fields
 * are dropped.
 */

const stringMap = z.record(z.string(), z.string().nullable());

export const protocolSchema = z.object({
  minReaderVersion: z.number().int(),
  minWriterVersion: z.number().int(),
  readerFeatures: z.array(z.string()).nullish(),
  writerFeatures: z.array(z.string()).nullish(),
});
export type ProtocolAction = z.infer<typeof protocolSchema>;

export const metadataSchema = z.object({
  id: z.string(),
  name: z.string().nullish(),
  description: z.string().nullish(),
  format: z.object({ provider: z.string(), options: stringMap.nullish() }).nullish(),
  schemaString: z.string(),
  partitionColumns: z
    .array(z.string())
    .nullish()
    .transform((columns) => columns ?? []),
  configuration: stringMap.nullish(),
  createdTime: z.number().nullish(),
});
export type MetadataAction = z.output<typeof metadataSchema>;

export const addSchema = z.object({
  path: z.string(),
  partitionValues: stringMap.nullish().transform((values) => values ?? {}),
  size: z.number(),
  modificationTime: z.number(),
  dataChange: z.boolean(),
  stats: z.string().nullish(),
  tags: stringMap.nullish(),
  deletionVector: z.unknown().optional(),
  baseRowId: z.number().nullish(),
  defaultRowCommitVersion: z.number().nullish(),
});
export type AddAction = z.output<typeof addSchema>;

export const removeSchema = z.object({
  path: z.string(),
  deletionTimestamp: z.number().nullish(),
  dataChange: z.boolean(),
  extendedFileMetadata: z.boolean().nullish(),
  partitionValues: stringMap.nullish(),
  size: z.number().nullish(),
  deletionVector: z.unknown().optional(),
});
export type RemoveAction = z.output<typeof removeSchema>;

export const txnSchema = z.object({
  appId: z.string(),
  version: z.number(),
  lastUpdated: z.number().nullish(),
});
export type TxnAction = z.output<typeof txnSchema>;

export const commitInfoSchema = z.record(z.string(), z.unknown());
export type CommitInfoAction = z.output<typeof commitInfoSchema>;

export type LogAction =
  | { protocol: ProtocolAction }
  | { metaData: MetadataAction }
  | { add: AddAction }
  | { remove: RemoveAction }
  | { txn: TxnAction }
  | { commitInfo: CommitInfoAction };

/** Parses one action object (a line of a commit, a row of a checkpoint); null for actions we don't use. */
export function parseAction(json: unknown, where: string): LogAction | null {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new DeltaLogCorrupt(`${where}: an action must be a JSON object`);
  }
  const record = json as Record<string, unknown>;
  const parse = <T>(schema: z.ZodType<T>, value: unknown, name: string): T => {
    const result = schema.safeParse(value);
    if (!result.success) {
      throw new DeltaLogCorrupt(`${where}: invalid ${name} action: ${z.prettifyError(result.error)}`);
    }
    return result.data;
  };
  // Checkpoint rows hold every action column, all but one null.
  if (record.add != null) return { add: parse(addSchema, record.add, 'add') };
  if (record.remove != null) return { remove: parse(removeSchema, record.remove, 'remove') };
  if (record.metaData != null) return { metaData: parse(metadataSchema, record.metaData, 'metaData') };
  if (record.protocol != null) return { protocol: parse(protocolSchema, record.protocol, 'protocol') };
  if (record.txn != null) return { txn: parse(txnSchema, record.txn, 'txn') };
  if (record.commitInfo != null) return { commitInfo: parse(commitInfoSchema, record.commitInfo, 'commitInfo') };
  // cdc, domainMetadata, checkpointMetadata, sidecar, …: not needed to find the table's files.
  return null;
}

/** Parses a commit file: newline-delimited JSON, one action per line. */
export function parseCommit(text: string, where: string): LogAction[] {
  const actions: LogAction[] = [];
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      throw new DeltaLogCorrupt(`${where} line ${index + 1} is not JSON`, { cause: error });
    }
    const action = parseAction(json, `${where} line ${index + 1}`);
    if (action !== null) actions.push(action);
  }
  return actions;
}

/** The text of a commit file. */
export function serializeCommit(actions: readonly LogAction[]): string {
  return `${actions.map((action) => JSON.stringify(action)).join('\n')}\n`;
}
