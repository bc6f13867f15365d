import { DeltaError, DeltaLogCorrupt } from './errors.js';

/** Where the files of a table live in object storage; `root` is a key prefix like `deltatables/<id>`. */

export function logPrefix(root: string): string {
  return `${root}/_delta_log/`;
}

function pad(version: number): string {
  if (!Number.isSafeInteger(version) || version < 0) throw new DeltaError(`invalid table version ${version}`);
  return String(version).padStart(20, '0');
}

export function commitKey(root: string, version: number): string {
  return `${logPrefix(root)}${pad(version)}.json`;
}

export function checkpointKey(root: string, version: number): string {
  return `${logPrefix(root)}${pad(version)}.checkpoint.parquet`;
}

export function checkpointPartKey(root: string, version: number, part: number, parts: number): string {
  return `${logPrefix(root)}${pad(version)}.checkpoint.${String(part).padStart(10, '0')}.${String(parts).padStart(10, '0')}.parquet`;
}

export function lastCheckpointKey(root: string): string {
  return `${logPrefix(root)}_last_checkpoint`;
}

export type LogFile =
  | { kind: 'commit'; version: number }
  | { kind: 'checkpoint'; version: number; part: number; parts: number };

const COMMIT = /^(\d{20})\.json$/;
const CHECKPOINT = /^(\d{20})\.checkpoint\.parquet$/;
const CHECKPOINT_PART = /^(\d{20})\.checkpoint\.(\d{10})\.(\d{10})\.parquet$/;

/** What a file name in `_delta_log/` is; null for everything else (crc, compactions, v2 checkpoints, …). */
export function parseLogFileName(name: string): LogFile | null {
  let match = COMMIT.exec(name);
  if (match !== null) return { kind: 'commit', version: Number(match[1]) };
  match = CHECKPOINT.exec(name);
  if (match !== null) return { kind: 'checkpoint', version: Number(match[1]), part: 1, parts: 1 };
  match = CHECKPOINT_PART.exec(name);
  if (match !== null)
    return { kind: 'checkpoint', version: Number(match[1]), part: Number(match[2]), parts: Number(match[3]) };
  return null;
}

/**
 * The file path an `add`/`remove` path names: the log holds a relative URI, percent-decoded once
 * (`a%2520b` is the file `a%20b`). Absolute URIs (shallow clones) are not supported.
 */
export function decodeDataPath(path: string): string {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(path) || path.startsWith('/')) {
    throw new DeltaError(`data file path ${path} is absolute; only paths relative to the table root are supported`);
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch (error) {
    throw new DeltaLogCorrupt(`data file path ${path} is not a valid URI`, { cause: error });
  }
  if (decoded.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    throw new DeltaLogCorrupt(`data file path ${path} leaves the table root`);
  }
  return decoded;
}

/** The URI form of a relative file path, for the log. */
export function encodeDataPath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

export function dataFileKey(root: string, decodedPath: string): string {
  return `${root}/${decodedPath}`;
}
