import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { DuckDB, SqlConnection } from './duckdb.js';
import { quoteIdentifier, quoteString } from './sql.js';

/** When and how many table versions get a DuckDB-native copy (`Config.dashboards`). */
export interface NativeCopiesOptions {
  /**
   * Where the copies' database files live: each process uses a folder of its own inside (processes
   * may share a data directory), removed when it closes, or by the next start on this host if it died.
   */
  directory: string;
  /** Versions with fewer rows are read from their Parquet files (a copy would not pay for itself). */
  minRows: number;
  /** Copies kept at once, least recently read first out; 0 turns copies off. */
  maxCopies: number;
}

/** A copy being read: its relation, until `release`. */
export interface CopyLease {
  /** The copy's table, qualified (`"native_3"."main"."rows"`), to use where the scan's subquery would be. */
  relation: string;
  release(): void;
}

/** The rows a copy is made of: a subquery over the version's files, and what it holds until released. */
export interface CopySource {
  sql: string;
  release(): void;
}

interface Copy {
  alias: string;
  file: string;
  readers: number;
  /** Evicted while read: detached when the last reader releases it. */
  evicted: boolean;
}

const RELATION = quoteIdentifier('rows');
const FLOAT_CODECS = 'alp,alprd,chimp,patas';

/**
 * DuckDB-native copies of large table versions, built in the background on first read and used
 * in place of the Parquet scan once ready. A version never changes, so a copy never goes stale;
 * it is a per-process cache (each replica builds its own from shared storage).
 *
 * Why: DuckDB's own storage keeps strings dictionary-encoded and needs no Parquet decoding, so a
 * dashboard's filtered aggregates over millions of rows run 2–3× faster on it (docs/performance.md).
 * The copy is an attached database file, not an in-memory table: DuckDB compresses its files
 * (strings, integers and dates; with plain doubles about 1.5× the Parquet's size) but not
 * in-memory tables (5× the Parquet's).
 */
export class NativeCopies {
  private readonly copies = new Map<string, Copy>();
  private readonly building = new Map<string, Promise<void>>();
  /** Versions whose copy failed: read from Parquet from then on (bounded, oldest out). */
  private readonly failed = new Set<string>();
  /** One build at a time: each uses every DuckDB thread. */
  private queue: Promise<void> = Promise.resolve();
  /** Evicted copies being detached and removed. */
  private readonly detaching = new Set<Promise<void>>();
  private sequence = 0;
  private closed = false;
  /** Copies built, builds that failed, copies evicted, and reads served from a copy. */
  readonly counts = { built: 0, failed: 0, evicted: 0, reads: 0 };

  private constructor(
    private readonly duckdb: Pick<DuckDB, 'withConnection'>,
    private readonly options: NativeCopiesOptions,
  ) {}

  static async open(duckdb: Pick<DuckDB, 'withConnection'>, options: NativeCopiesOptions): Promise<NativeCopies> {
    const own = join(options.directory, `${hostname()}-${process.pid}`);
    if (options.maxCopies > 0) {
      await removeDeadProcessFolders(options.directory);
      await mkdir(own, { recursive: true });
    }
    return new NativeCopies(duckdb, { ...options, directory: own });
  }

  /**
   * The copy of the version `key` names, when built; otherwise starts building it (for versions
   * of at least `minRows` rows) and answers null: the caller reads the Parquet files meanwhile.
   */
  acquire(
    key: string,
    rows: number | null,
    source: (connection: SqlConnection) => Promise<CopySource>,
  ): CopyLease | null {
    const copy = this.copies.get(key);
    if (copy !== undefined) {
      // Most recently read last: eviction takes the first.
      this.copies.delete(key);
      this.copies.set(key, copy);
      copy.readers += 1;
      this.counts.reads += 1;
      let released = false;
      return {
        relation: `${quoteIdentifier(copy.alias)}.main.${RELATION}`,
        release: () => {
          if (released) return;
          released = true;
          copy.readers -= 1;
          if (copy.evicted && copy.readers === 0) this.detachLater(copy);
        },
      };
    }
    if (this.wanted(key, rows)) this.build(key, source);
    return null;
  }

  /** Settles when every copy asked for so far is built or has failed, and evicted ones are gone (for tests and benchmarks). */
  async idle(): Promise<void> {
    while (this.building.size > 0 || this.detaching.size > 0) {
      await Promise.allSettled([...this.building.values(), ...this.detaching]);
    }
  }

  /** Copies ready now. */
  get size(): number {
    return this.copies.size;
  }

  /** Detaches every copy; builds still queued are dropped. */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
    await Promise.allSettled([...this.copies.values()].map((copy) => this.detach(copy)));
    this.copies.clear();
    await rm(this.options.directory, { recursive: true, force: true });
  }

  private wanted(key: string, rows: number | null): boolean {
    return (
      !this.closed &&
      this.options.maxCopies > 0 &&
      rows !== null &&
      rows >= this.options.minRows &&
      !this.building.has(key) &&
      !this.failed.has(key)
    );
  }

  private build(key: string, source: (connection: SqlConnection) => Promise<CopySource>): void {
    const alias = `native_${++this.sequence}`;
    const file = join(this.options.directory, `${alias}.duckdb`);
    const run = async () => {
      if (this.closed) return;
      try {
        await this.write(file, alias, source);
        this.copies.set(key, { alias, file, readers: 0, evicted: false });
        this.counts.built += 1;
        this.evictBeyondLimit();
      } catch {
        // The Parquet path still answers; a copy that cannot be built is not retried.
        this.counts.failed += 1;
        this.failed.add(key);
        if (this.failed.size > 1000) this.failed.delete(this.failed.values().next().value as string);
        await removeFiles(file);
      }
    };
    const built = this.queue.then(run);
    this.queue = built;
    this.building.set(key, built);
    void built.finally(() => this.building.delete(key));
  }

  /** Writes the copy to a file of its own, then attaches it read-only under `alias`. */
  private async write(
    file: string,
    alias: string,
    source: (connection: SqlConnection) => Promise<CopySource>,
  ): Promise<void> {
    const partial = `${file}.partial`;
    const writing = quoteIdentifier(`${alias}_build`);
    await this.duckdb.withConnection(async (connection) => {
      const scan = await source(connection);
      try {
        // Doubles stored plain: DuckDB's floating-point codecs (ALP) made range filters on them 15%
        // slower and sums twice as slow, for a file a half larger (12 M rows: 188 → 282 MB).
        await connection.run(`SET disabled_compression_methods = '${FLOAT_CODECS}'`);
        try {
          await connection.run(`ATTACH ${quoteString(partial)} AS ${writing}`);
          try {
            // Insertion order is kept: an unsorted page reads the same rows as from the Parquet files.
            await connection.run(`CREATE TABLE ${writing}.main.${RELATION} AS SELECT * FROM (${scan.sql})`);
          } finally {
            await connection.run(`DETACH ${writing}`);
          }
        } finally {
          await connection.run('RESET disabled_compression_methods');
        }
      } finally {
        scan.release();
      }
      // Only a complete file gets the name that is attached.
      await rename(partial, file);
      await connection.run(`ATTACH ${quoteString(file)} AS ${quoteIdentifier(alias)} (READ_ONLY)`);
    });
  }

  private evictBeyondLimit(): void {
    while (this.copies.size > this.options.maxCopies) {
      const [key, oldest] = this.copies.entries().next().value as [string, Copy];
      this.copies.delete(key);
      this.counts.evicted += 1;
      oldest.evicted = true;
      if (oldest.readers === 0) this.detachLater(oldest);
    }
  }

  private detachLater(copy: Copy): void {
    const detached = this.detach(copy);
    this.detaching.add(detached);
    void detached.then(() => this.detaching.delete(detached));
  }

  /** Never throws: called without waiting, and a copy that cannot be detached is only a file left behind. */
  private async detach(copy: Copy): Promise<void> {
    try {
      await this.duckdb.withConnection((connection) => connection.run(`DETACH ${quoteIdentifier(copy.alias)}`));
      await removeFiles(copy.file);
    } catch {
      // Emptied at the next start.
    }
  }
}

async function removeFiles(file: string): Promise<void> {
  await Promise.all(
    [file, `${file}.wal`, `${file}.partial`, `${file}.partial.wal`].map((path) => rm(path, { force: true })),
  );
}

/** Folders of processes of this host that are gone (a crash leaves its copies behind). */
async function removeDeadProcessFolders(directory: string): Promise<void> {
  const prefix = `${hostname()}-`;
  const names = await readdir(directory).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (Number.isSafeInteger(pid) && !processAlive(pid))
      await rm(join(directory, name), { recursive: true, force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
