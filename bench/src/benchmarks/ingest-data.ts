/**
 * The `ingest` benchmark's input: a CSV of `rows` rows written straight to disk in large chunks
 * (never held whole in memory), about 95 bytes a row, so 10 million rows make about 1 GB.
 * Deterministic (seeded), so every run reads the same bytes.
 *
 * Columns: `sample_id` (a unique UUID-shaped string), `group` (one of 20 tissue names), `value`
 * (a double around 500, 9 decimals), `score` (a double in [0, 1), 12 decimals), `count` (an
 * integer below 2^30), `day` (a date).
 */
import { open } from 'node:fs/promises';

export const CSV_HEADER = 'sample_id,group,value,score,count,day';

/** The values of the `group` column; the aggregate groups by them. */
export const GROUPS = [
  'adrenal',
  'bladder',
  'blood',
  'bone',
  'brain',
  'breast',
  'colon',
  'esophagus',
  'heart',
  'kidney',
  'liver',
  'lung',
  'muscle',
  'nerve',
  'ovary',
  'pancreas',
  'skin',
  'spleen',
  'stomach',
  'thyroid',
] as const;

/** Bytes per write. */
const CHUNK_BYTES = 8 * 1024 * 1024;
/** More than any row takes (they are ASCII, about 95 bytes). */
const MAX_ROW_BYTES = 256;
const DAYS = 3650;
const SEED = 0x5eed1234;

/** mulberry32: a fast 32-bit generator, good enough for test data and identical across runs. */
export function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

function dayStrings(count: number): string[] {
  const start = Date.UTC(2015, 0, 1);
  return Array.from({ length: count }, (_, index) => new Date(start + index * 86_400_000).toISOString().slice(0, 10));
}

/** Two hex digits per byte: a table lookup is much cheaper than `toString(16).padStart(...)`. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const hex4 = (value: number) => `${HEX[(value >>> 8) & 0xff]}${HEX[value & 0xff]}`;
const hex8 = (value: number) => `${hex4(value >>> 16)}${hex4(value)}`;

export interface GeneratedFile {
  rows: number;
  bytes: number;
  seconds: number;
}

/** Writes the CSV to `path` (replacing it). */
export async function generateCsv(path: string, rows: number): Promise<GeneratedFile> {
  const started = performance.now();
  const next = generator(SEED);
  const days = dayStrings(DAYS);
  const handle = await open(path, 'w');
  // Each row goes into this buffer as soon as it is made, so its strings die young: collected
  // into an array first, they would outlive the young generation and the GC would dominate.
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let used = 0;
  let bytes = 0;
  const flush = async () => {
    await handle.write(chunk, 0, used);
    bytes += used;
    used = 0;
  };
  try {
    used += chunk.write(`${CSV_HEADER}\n`, used, 'latin1');
    for (let index = 0; index < rows; index++) {
      const a = next();
      const b = next();
      const c = next();
      const d = next();
      // UUID-shaped and unique: random in front, the row number (48 bits) at the end.
      const id = `${hex8(a)}-${hex4(b >>> 16)}-4${hex4(b).slice(1)}-${hex4(d)}-${hex4(index / 4_294_967_296)}${hex8(index)}`;
      const group = GROUPS[a % GROUPS.length];
      // Roughly bell-shaped around 500 (sum of two uniforms), with the fixed decimals pipelines
      // usually write (toFixed is also several times faster than the shortest round-trip form).
      const value = ((c / 4_294_967_296 + d / 4_294_967_296) * 500).toFixed(9);
      const score = (((b ^ c) >>> 0) / 4_294_967_296).toFixed(12);
      const count = (c ^ d) >>> 2;
      const day = days[c % DAYS];
      used += chunk.write(`${id},${group},${value},${score},${count},${day}\n`, used, 'latin1');
      if (used > CHUNK_BYTES - MAX_ROW_BYTES) await flush();
    }
    await flush();
  } finally {
    await handle.close();
  }
  return { rows, bytes, seconds: (performance.now() - started) / 1000 };
}
