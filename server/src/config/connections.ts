import { isAbsolute, resolve } from 'node:path';

export type DatabaseConfig = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };
export type StorageConfig = { kind: 'local'; root: string } | { kind: 's3'; bucket: string; prefix: string };

/** Records a problem with a setting; parsing goes on so that every problem is reported at once. */
export type Fail = (variable: string, reason: string) => void;

/** SERVICE_DATABASE_URL: PostgreSQL, or a SQLite file (in the data directory by default). */
export function parseDatabaseUrl(value: string | undefined, dataDir: string, cwd: string, fail: Fail): DatabaseConfig {
  if (value === undefined) return { kind: 'sqlite', path: resolve(dataDir, 'service.sqlite') };
  if (/^postgres(ql)?:\/\//.test(value)) {
    try {
      new URL(value);
      return { kind: 'postgres', url: value };
    } catch {
      fail('SERVICE_DATABASE_URL', 'is not a valid postgres:// URL');
    }
  } else if (value.startsWith('sqlite:')) {
    const path = value.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') fail('SERVICE_DATABASE_URL', 'sqlite: needs a file path, e.g. sqlite:./data/service.sqlite');
    else return { kind: 'sqlite', path: isAbsolute(path) ? path : resolve(cwd, path) };
  } else {
    fail(
      'SERVICE_DATABASE_URL',
      `must start with postgres://, postgresql:// or sqlite: (got "${value.split(':')[0]}:…")`,
    );
  }
  return { kind: 'sqlite', path: resolve(dataDir, 'service.sqlite') };
}

/** SERVICE_STORAGE_URL: an S3 bucket and prefix, or a local folder (in the data directory by default). */
export function parseStorageUrl(value: string | undefined, dataDir: string, cwd: string, fail: Fail): StorageConfig {
  if (value === undefined) return { kind: 'local', root: resolve(dataDir, 'storage') };
  if (value.startsWith('s3://')) {
    const rest = value.slice('s3://'.length);
    const [bucket = '', ...prefixParts] = rest.split('/');
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
      fail('SERVICE_STORAGE_URL', 'needs a valid bucket name, e.g. s3://my-bucket/prefix');
    }
    return { kind: 's3', bucket, prefix: prefixParts.filter(Boolean).join('/') };
  }
  if (value.startsWith('file://')) return { kind: 'local', root: resolve(cwd, value.slice('file://'.length)) };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    fail('SERVICE_STORAGE_URL', 'must be a local path, file://… or s3://bucket/prefix');
  }
  return { kind: 'local', root: resolve(cwd, value) };
}
