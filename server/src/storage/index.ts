import type { Config } from '../config/config.js';
import { LocalStorage } from './local.js';
import type { ObjectStorage } from './storage.js';

export function openStorage(config: Config): ObjectStorage {
  if (config.storage.kind === 'local') return new LocalStorage(config.storage.root);
  throw new Error('S3 storage is not available yet');
}
