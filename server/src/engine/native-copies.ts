import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { outsideBounds } from './bounded-work.js';
import { MAX_SCAN_GROUPS } from './delta/reader.js';
import { DuckDB, type SqlConnection } from './duckdb.js';
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

/** What decides whether a version is worth a copy: its rows (null when unknown) and its files. */
export interface VersionSize {
  rows: number | null;
  files: number;
}

/**
 * Files above which a version gets a copy whatever its rows: beyond this a scan reads every file
 * with one `read_parquet` (engine/delta/reader.ts), opening each of them at every read.
 */
export const MANY_FILES = MAX_SCAN_GROUPS;

/** A copy being read: its relation, until `release`. */
export interface CopyLease {
  /** The copy's table, qualified (`"native_3"."main"."rows"`), to use where the scan's subquery would be. */
  relation: string;
  /**
   * What to ORDER BY for the rows in the order of the version's files: a clustered copy keeps
   * them in another order; '' when the copy's own order is theirs.
   */
  fileOrder: string;
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
  fileOrder: string;
  readers: number;
  /** Evicted while read: detached when the last reader releases it. */
  evicted: boolean;
}

const RELATION = quoteIdentifier('rows');
/** Memory of the DuckDB that sorts a clustered copy (it spills beyond). */
const SORT_MEMORY = '256MB';
const FLOAT_CODECS = 'alp,alprd,chimp,patas';
/** Bits of the Z-order value: shared out among the clustering columns. */
const Z_BITS = 30;

/**
 * DuckDB-native copies of large table versions, built in the background on first read and used
 * in place of the Parquet scan once ready. A version never changes, so a copy never goes stale;
 * it is a per-process cache (each replica builds its own from shared storage).
 *
 * Why: DuckDB's own storage keeps strings dictionary-encoded and needs no Parquet decoding, so a
 * dashboard's filtered aggregates over millions of rows run faster on it (p50 1,008 → 610 ms on
 * 12 M rows, docs/performance.md, `dashboard`).
 * The copy is an attached database file, not an in-memory table: DuckDB compresses its files
 * (strings, integers and dates; with plain doubles about 1.5× the Parquet's size) but not
 * in-memory tables (5× the Parquet's).
 */
export class NativeCopies {
  private readonly copies = new Map<string, Copy>();
  /** Builds queued or running, by version: the latest asked for, and whether it clusters. */
  private readonly building = new Map<string, { built: Promise<void>; clustered: boolean }>();
  /** Versions whose copy failed: read from Parquet from then on (bounded, oldest out). */
  private readonly failed = new Set<string>();
  /** One build at a time: each uses every DuckDB thread. */
  private queue: Promise<void> = Promise.resolve();
  /** Evicted copies being detached and removed. */
  private readonly detaching = new Set<Promise<void>>();
  private sequence = 0;
  private closed = false;
  /** Copies built, builds that failed, copies evicted, and reads served from a copy. */
  readonly counts = { built: 0, failed: 0, evicted: 0, reads: 0, clustered: 0 };

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
   * of at least `minRows` rows or more than `MANY_FILES` files) and answers null: the caller reads the Parquet files meanwhile.
   * `cluster` are numeric SQL expressions over the rows (at most three used) to cluster a new copy
   * by: rows close in them are stored together, so that DuckDB skips the row groups a range filter
   * on them excludes. A copy built (or being built) unclustered is built once more, clustered, for
   * the first reader asking for clustering; it replaces the first once ready.
   */
  acquire(
    key: string,
    size: VersionSize,
    cluster: readonly string[],
    source: (connection: SqlConnection) => Promise<CopySource>,
  ): CopyLease | null {
    const copy = this.copies.get(key);
    if (this.asks(key, copy, cluster) && this.wanted(key, size)) this.build(key, cluster.slice(0, 3), source);
    if (copy === undefined) return null;
    // Most recently read last: eviction takes the first.
    this.copies.delete(key);
    this.copies.set(key, copy);
    copy.readers += 1;
    this.counts.reads += 1;
    let released = false;
    return {
      relation: `${quoteIdentifier(copy.alias)}.main.${RELATION}`,
      fileOrder: copy.fileOrder,
      release: () => {
        if (released) return;
        released = true;
        copy.readers -= 1;
        if (copy.evicted && copy.readers === 0) this.detachLater(copy);
      },
    };
  }

  /**
   * Whether a reader asking for `cluster` needs a build of `key` queued: none is built or being
   * built, or only an unclustered one and this reader clusters. Being built unclustered (for a
   * check of the columns when a dashboard was saved), the clustered build is queued at once, not
   * at the first read after that build, so that it is ready before the dashboard's filter changes
   * rather than competing with them.
   */
  private asks(key: string, copy: Copy | undefined, cluster: readonly string[]): boolean {
    // The build queued last, else the copy built.
    const latest = this.building.get(key) ?? (copy === undefined ? undefined : { clustered: copy.fileOrder !== '' });
    return latest === undefined || (!latest.clustered && cluster.length > 0);
  }

  /** Settles when every copy asked for so far is built or has failed, and evicted ones are gone (for tests and benchmarks). */
  async idle(): Promise<void> {
    while (this.building.size > 0 || this.detaching.size > 0) {
      await Promise.allSettled([...[...this.building.values()].map(({ built }) => built), ...this.detaching]);
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

  private wanted(key: string, { rows, files }: VersionSize): boolean {
    // Many files cost their opening at every read, however few rows they hold (an image
    // collection: a file per image); one copy reads them once.
    const large = (rows !== null && rows >= this.options.minRows) || files > MANY_FILES;
    return !this.closed && this.options.maxCopies > 0 && large && !this.failed.has(key);
  }

  private build(
    key: string,
    cluster: readonly string[],
    source: (connection: SqlConnection) => Promise<CopySource>,
  ): void {
    const alias = `native_${++this.sequence}`;
    const file = join(this.options.directory, `${alias}.duckdb`);
    const run = async () => {
      if (this.closed) return;
      try {
        const fileOrder = await this.write(file, alias, cluster, source);
        const replaced = this.copies.get(key);
        this.copies.delete(key);
        this.copies.set(key, { alias, file, fileOrder, readers: 0, evicted: false });
        if (replaced !== undefined) {
          replaced.evicted = true;
          if (replaced.readers === 0) this.detachLater(replaced);
        }
        this.counts.built += 1;
        if (fileOrder !== '') this.counts.clustered += 1;
        this.evictBeyondLimit();
      } catch {
        // The Parquet path still answers; a copy that cannot be built is not retried.
        this.counts.failed += 1;
        this.failed.add(key);
        if (this.failed.size > 1000) this.failed.delete(this.failed.values().next().value as string);
        await removeFiles(file);
      }
    };
    // Built for every later reader, not for the request that asked: outside that request's bounds
    // (a build under them was refused once the request was stopped, or cut at its 30 s statement
    // limit, and never tried again).
    const built = this.queue.then(() => outsideBounds(run));
    this.queue = built;
    const entry = { built, clustered: cluster.length > 0 };
    this.building.set(key, entry);
    void built.finally(() => {
      if (this.building.get(key) === entry) this.building.delete(key);
    });
  }

  /**
   * Writes the copy to a file of its own, then attaches it read-only under `alias`; answers the
   * copy's `fileOrder`. Clustered, the rows are first written in file order to a staging file,
   * then sorted into the copy (see `sortIntoCopy`).
   */
  private async write(
    file: string,
    alias: string,
    cluster: readonly string[],
    source: (connection: SqlConnection) => Promise<CopySource>,
  ): Promise<string> {
    const partial = `${file}.partial`;
    const staging = `${file}.staging`;
    let fileOrder = '';
    await this.duckdb.withConnection(async (connection) => {
      const target = cluster.length === 0 ? partial : staging;
      const writing = quoteIdentifier(`${alias}_build`);
      const scan = await source(connection);
      try {
        await writeTable(connection, target, writing, `SELECT * FROM (${scan.sql})`);
      } finally {
        scan.release();
      }
      if (cluster.length > 0) {
        try {
          fileOrder = await sortIntoCopy(staging, partial, `${file}.spill`, cluster);
        } finally {
          await removeFiles(staging);
        }
      }
      // Only a complete file gets the name that is attached.
      await rename(partial, file);
      await connection.run(`ATTACH ${quoteString(file)} AS ${quoteIdentifier(alias)} (READ_ONLY)`);
    });
    return fileOrder;
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

/** Writes a query's rows as the copy's table into a new DuckDB file at `path`. */
async function writeTable(connection: SqlConnection, path: string, alias: string, query: string): Promise<void> {
  // Doubles stored plain: DuckDB's floating-point codecs (ALP) made range filters on them 15%
  // slower and sums twice as slow, for a file a half larger (12 M rows: 188 → 282 MB).
  await connection.run(`SET disabled_compression_methods = '${FLOAT_CODECS}'`);
  try {
    await connection.run(`ATTACH ${quoteString(path)} AS ${alias}`);
    try {
      // Insertion order is kept: unclustered, an unsorted page reads the same rows as from the Parquet files.
      await connection.run(`CREATE TABLE ${alias}.main.${RELATION} AS ${query}`);
    } finally {
      await connection.run(`DETACH ${alias}`);
    }
  } finally {
    await connection.run('RESET disabled_compression_methods');
  }
}

/**
 * Sorts the staged rows (in file order) into the copy at `partial`, in a DuckDB of its own whose
 * memory is bounded (SORT_MEMORY; beyond it the sort spills to `spill`): sorting every column of
 * 12 M rows in the server's DuckDB took 2.5 GB more memory. Answers the copy's `fileOrder`.
 */
async function sortIntoCopy(staging: string, partial: string, spill: string, cluster: readonly string[]) {
  const sorter = await DuckDB.open({ threads: 2, memoryLimit: SORT_MEMORY, tempDirectory: spill });
  try {
    return await sorter.withConnection(async (connection) => {
      const staged = quoteIdentifier('staged');
      await connection.run(`ATTACH ${quoteString(staging)} AS ${staged} (READ_ONLY)`);
      await connection.run(`SET disabled_compression_methods = '${FLOAT_CODECS}'`);
      await connection.run(`ATTACH ${quoteString(partial)} AS ${quoteIdentifier('sorted')}`);
      return await clusteredCopy(connection, `${staged}.main.${RELATION}`, `"sorted".main.${RELATION}`, cluster);
    });
  } finally {
    sorter.close();
    await rm(spill, { recursive: true, force: true });
  }
}

/**
 * Writes `from`'s rows to `to` in the Z-order of `cluster` (each expression cut into equal steps
 * between its finite minimum and maximum, their bits interleaved), with each row's position in
 * `from` in a column of its own; answers that column, quoted, for ORDER BY.
 */
async function clusteredCopy(
  connection: SqlConnection,
  from: string,
  to: string,
  cluster: readonly string[],
): Promise<string> {
  const described = await connection.describe(`SELECT * FROM ${from}`);
  const taken = new Set(described.map((column) => column.name));
  const unused = (name: string) => {
    let chosen = name;
    while (taken.has(chosen)) chosen = `_${chosen}`;
    taken.add(chosen);
    return quoteIdentifier(chosen);
  };
  const position = unused('__file_position');
  const zValue = unused('__z_order');
  const values = cluster.map((expression) => `CAST(${expression} AS DOUBLE)`);
  const [bounds = {}] = await connection.query(
    `SELECT ${values
      .map(
        (value, index) =>
          `min(${value}) FILTER (WHERE isfinite(${value})) AS "low${index}", max(${value}) FILTER (WHERE isfinite(${value})) AS "high${index}"`,
      )
      .join(', ')} FROM ${from}`,
  );
  const bits = Math.floor(Z_BITS / values.length);
  const steps = values.map((value, index) => {
    const low = bounds[`low${index}`];
    const high = bounds[`high${index}`];
    // Rows without a finite value, or a column of one value, all go to the first step.
    if (typeof low !== 'number' || typeof high !== 'number' || high <= low) return '0';
    // Halves, so that the span of the widest doubles stays finite.
    const fraction = `((${value}) / 2 - ${low / 2}) / ${high / 2 - low / 2}`;
    return `(CASE WHEN isfinite(${value}) THEN least(greatest(CAST(floor(${fraction} * ${2 ** bits}) AS BIGINT), 0), ${2 ** bits - 1}) ELSE 0 END)`;
  });
  // Each step computed once per row, in a column of its own, before its bits are interleaved.
  const stepColumns = steps.map((_, index) => unused(`__z_step_${index}`));
  const interleaved: string[] = [];
  for (let bit = 0; bit < bits; bit++) {
    stepColumns.forEach((column, index) => {
      interleaved.push(`(((${column} >> ${bit}) & 1) << ${bit * stepColumns.length + index})`);
    });
  }
  const stepped =
    `SELECT *, rowid AS ${position}, ${steps.map((step, index) => `${step} AS ${stepColumns[index]}`).join(', ')} ` +
    `FROM ${from}`;
  await connection.run(
    `CREATE TABLE ${to} AS SELECT * EXCLUDE (${zValue}) FROM (SELECT * EXCLUDE (${stepColumns.join(', ')}), ` +
      `${interleaved.join(' + ')} AS ${zValue} FROM (${stepped})) ORDER BY ${zValue}, ${position}`,
  );
  return position;
}
