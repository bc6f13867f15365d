import type { Config } from '../config/config.js';
import { LocalStorage } from './local.js';
import { S3Storage } from './s3.js';
import type { ObjectStorage } from './storage.js';

export function openStorage(config: Config): ObjectStorage {
  if (config.storage.kind === 'local') return new LocalStorage(config.storage.root);
  return new S3Storage({ bucket: config.storage.bucket, prefix: config.storage.prefix, ...config.s3 });
}
