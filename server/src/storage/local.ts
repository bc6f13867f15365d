import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { removeLeftovers } from './leftover-files.js';
import {
  type AbandonedWrites,
  assertSafeKey,
  ObjectNotFound,
  type ObjectStorage,
  type StoredObject,
} from './storage.js';

const TEMP_DIR = '.tmp';

/** Objects as files under one directory. Writes go to a temporary file first, then rename into place. */
export class LocalStorage implements ObjectStorage {
  readonly kind = 'local';

  constructor(private readonly root: string) {}

  private path(key: string): string {
    assertSafeKey(key);
    return join(this.root, ...key.split('/'));
  }

  private async temporary(): Promise<string> {
    const dir = join(this.root, TEMP_DIR);
    await mkdir(dir, { recursive: true });
    return join(dir, randomUUID());
  }

  private async commit(temporary: string, key: string): Promise<{ size: number }> {
    const target = this.path(key);
    for (let attempt = 1; ; attempt++) {
      try {
        await mkdir(dirname(target), { recursive: true });
        await rename(temporary, target);
        break;
      } catch (error) {
        // A delete pruned the directory between mkdir and rename: make it again (unless the
        // file to move is what is missing).
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 5) throw error;
        await stat(temporary);
      }
    }
    return { size: (await stat(target)).size };
  }

  /** Temporary files of writes whose process died before renaming them into place. */
  async removeAbandonedWrites(before: Date, dryRun: boolean): Promise<AbandonedWrites> {
    const removed = await removeLeftovers([{ directory: join(this.root, TEMP_DIR) }], before.getTime(), dryRun);
    return { count: removed.length, bytes: removed.reduce((total, file) => total + file.size, 0) };
  }

  async put(key: string, body: Readable | Buffer | string): Promise<{ size: number }> {
    this.path(key);
    const temporary = await this.temporary();
    const sink = createWriteStream(temporary, { flags: 'wx' });
    try {
      const source = typeof body === 'string' || Buffer.isBuffer(body) ? Readable.from([Buffer.from(body)]) : body;
      await pipeline(source, sink);
      return await this.commit(temporary, key);
    } catch (error) {
      // A body failing at once (too large) can fail the pipeline while the file is still being
      // opened: removed before, it would be created after. Remove it once the stream has closed.
      if (!sink.closed) await once(sink, 'close').catch(() => undefined);
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async putFile(key: string, localPath: string, options: { move?: boolean } = {}): Promise<{ size: number }> {
    this.path(key);
    if (options.move) {
      if (!(await stat(localPath)).isFile()) throw new Error(`not a file: ${localPath}`);
      try {
        // Same filesystem: the file itself goes into place, atomically, whatever its size.
        return await this.commit(localPath, key);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      }
    }
    const temporary = await this.temporary();
    let stored: { size: number };
    try {
      await copyFile(localPath, temporary);
      stored = await this.commit(temporary, key);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    if (options.move) await rm(localPath, { force: true });
    return stored;
  }

  async get(key: string, range?: { start: number; end?: number }): Promise<Readable> {
    const path = this.path(key);
    await this.statOrThrow(key, path);
    return createReadStream(
      path,
      range === undefined ? {} : { start: range.start, ...(range.end === undefined ? {} : { end: range.end }) },
    );
  }

  async getBuffer(key: string): Promise<Buffer> {
    try {
      return await readFile(this.path(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ObjectNotFound(key);
      throw error;
    }
  }

  private async statOrThrow(key: string, path: string) {
    try {
      return await stat(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ObjectNotFound(key);
      throw error;
    }
  }

  async head(key: string): Promise<StoredObject | null> {
    try {
      const info = await stat(this.path(key));
      return info.isFile() ? { key, size: info.size, modifiedAt: info.mtime } : null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    const found: StoredObject[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries: import('node:fs').Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      for (const entry of entries) {
        const full = join(dir, entry.name);
        const key = relative(this.root, full).split(sep).join('/');
        if (key === TEMP_DIR) continue;
        if (entry.isDirectory()) {
          if (key.startsWith(prefix) || prefix.startsWith(`${key}/`)) await walk(full);
        } else if (entry.isFile() && key.startsWith(prefix)) {
          const info = await stat(full);
          found.push({ key, size: info.size, modifiedAt: info.mtime });
        }
      }
    };
    await walk(this.root);
    found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    yield* found;
  }

  async delete(keys: string[]): Promise<void> {
    await Promise.all(keys.map((key) => rm(this.path(key), { force: true })));
    // Directories left empty go too, so a deleted table or project leaves no trace (not even its id).
    const directories = new Set(keys.map((key) => resolve(dirname(this.path(key)))));
    for (const directory of [...directories].sort((a, b) => b.length - a.length)) await this.prune(directory);
  }

  /** Removes `directory` and its parents while they are empty, up to the root. */
  private async prune(directory: string): Promise<void> {
    const root = resolve(this.root);
    for (let current = directory; current.startsWith(root + sep); current = dirname(current)) {
      try {
        await rmdir(current);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') continue;
        return;
      }
    }
  }

  localPath(key: string): string {
    return this.path(key);
  }
}
