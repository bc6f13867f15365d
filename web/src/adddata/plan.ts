import { type ColumnType, type DataFormat, FORMAT_OF_EXTENSION, tagSchema } from '@service/common';

/** The file picker's filter. */
export const ACCEPTED_EXTENSIONS = Object.keys(FORMAT_OF_EXTENSION)
  .map((extension) => `.${extension}`)
  .join(',');

/** The missing-value markers offered first; empty cells are missing too unless unticked. */
export const DEFAULT_NULL_MARKERS = ['NA', 'N/A', 'null'];

/** A text file is previewed from its first bytes only: enough rows to judge, never a large upload. */
export const PREVIEW_HEAD_BYTES = 1024 * 1024;

/**
 * A Parquet or JSON file cannot be cut, so its preview sends it whole: only up to this size. A
 * bigger one is added without a preview (its columns show once the table is built).
 */
export const PREVIEW_WHOLE_MAX_BYTES = 64 * 1024 * 1024;

/** Whether the file's first rows can be shown before it is added. */
export function previewable(file: Blob, format: DataFormat): boolean {
  return !wholeForPreview(format) || file.size <= PREVIEW_WHOLE_MAX_BYTES;
}

function wholeForPreview(format: DataFormat): boolean {
  return format === 'parquet' || format === 'json';
}

/** The workflow made for a project that has none: uploads only, no server folder. */
export const NEW_WORKFLOW_NAME = 'Uploads';

/** The run every added file goes into (the upload form's default too). */
export const UPLOAD_RUN = 'uploads';

export function formatOfName(name: string): DataFormat | null {
  const extension = /\.([A-Za-z0-9]+)(?:\.gz)?$/.exec(name)?.[1]?.toLowerCase() ?? '';
  return FORMAT_OF_EXTENSION[extension] ?? null;
}

/** Column types are chosen for CSV and TSV; Parquet and JSON carry their own. */
export function typesEditable(format: DataFormat): boolean {
  return format === 'csv' || format === 'tsv';
}

function stemOf(name: string): string {
  return name.replace(/(\.gz)?$/i, '').replace(/\.[^.]*$/, '');
}

/**
 * A collection name from the files' names: the name of one file without its extension, or what
 * several names share at their start (`penguins_2023.csv`, `penguins_2024.csv` → `penguins`),
 * made into a tag (letters, digits, `_`, `.`, `-`).
 */
export function proposeTag(names: readonly string[]): string {
  const stems = names.map(stemOf);
  let shared = stems[0] ?? '';
  for (const stem of stems.slice(1)) {
    let length = 0;
    while (length < shared.length && shared[length] === stem[length]) length += 1;
    shared = shared.slice(0, length);
  }
  const tag = shared
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^[^A-Za-z0-9]+/, '')
    .replace(/[_.-]+$/, '')
    .toLowerCase()
    .slice(0, 100);
  return tag === '' ? 'data' : tag;
}

/** Why a collection name cannot be used, or null. */
export function tagProblem(tag: string): string | null {
  const parsed = tagSchema.safeParse(tag);
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? 'not a valid name');
}

/** Escapes a tag (letters, digits, `_`, `.`, `-`) for a pattern: only the dot is special. */
function escapeTag(tag: string): string {
  return tag.replaceAll('.', '\\.');
}

/**
 * Each collection made here keeps its files in a folder of its own, named after it, in the
 * `uploads` run: its pattern takes any file in that folder, so files added later fit too, and the
 * collections made here never take each other's files.
 */
export function patternFor(tag: string): string {
  return `${escapeTag(tag)}/[^/]+`;
}

export function uploadPathFor(tag: string, fileName: string): string {
  return `${tag}/${fileName}`;
}

/**
 * What is sent for a preview: a CSV, TSV or NDJSON file's first lines (cut at the last line break
 * inside the first MiB, so no half line is read), a Parquet or JSON file whole (it cannot be cut).
 */
export async function previewPartOf(file: Blob, format: DataFormat): Promise<Blob> {
  if (wholeForPreview(format) || file.size <= PREVIEW_HEAD_BYTES) return file;
  const head = new Uint8Array(await file.slice(0, PREVIEW_HEAD_BYTES).arrayBuffer());
  const lastBreak = head.lastIndexOf(10);
  return file.slice(0, lastBreak < 0 ? PREVIEW_HEAD_BYTES : lastBreak + 1);
}

/** The null markers to send: the typed ones (comma-separated), and the empty text when empty cells are missing. */
export function nullMarkersOf(text: string, emptyIsMissing: boolean): string[] {
  const typed = text
    .split(',')
    .map((marker) => marker.trim())
    .filter((marker) => marker !== '');
  const unique = [...new Set(typed)];
  return emptyIsMissing ? [...unique, ''] : unique;
}

export interface ReadChoices {
  format: DataFormat;
  delimiter: string | undefined;
  header: boolean | undefined;
  nullMarkers: string[];
  /** The types a person changed, by column; the rest are as detected. */
  types: Record<string, ColumnType>;
}

/** The read options of the preview request and of the new collection (CSV/TSV only). */
export function readOptionsOf(choices: ReadChoices): Record<string, unknown> {
  if (!typesEditable(choices.format)) return {};
  return {
    ...(choices.delimiter === undefined ? {} : { delimiter: choices.delimiter }),
    ...(choices.header === undefined ? {} : { header: choices.header }),
    null_values: choices.nullMarkers,
    ...(Object.keys(choices.types).length === 0 ? {} : { columns: choices.types }),
  };
}

/** The delimiters offered; a detected one outside this list is offered as well. */
export const DELIMITERS: { value: string; label: string }[] = [
  { value: ',', label: 'Comma (,)' },
  { value: ';', label: 'Semicolon (;)' },
  { value: '\t', label: 'Tab' },
  { value: '|', label: 'Pipe (|)' },
  { value: ' ', label: 'Space' },
];

/** Files that make one collection: one format, and (when read) the same column names. */
export interface FileGroup<F extends { name: string }> {
  format: DataFormat | null;
  files: F[];
  /** The column names, sorted; null when the files could not be read (unknown format, too big, an error). */
  columns: string[] | null;
}

/**
 * Splits the chosen files into the collections they propose: files of one format whose columns
 * have the same names (in any order) go together; a file that could not be read goes with the
 * unread files of its format. Groups keep the order of their first file.
 */
export function groupFiles<F extends { name: string }>(
  files: readonly F[],
  columnsOf: (file: F, index: number) => readonly string[] | null,
): FileGroup<F>[] {
  const groups = new Map<string, FileGroup<F>>();
  files.forEach((file, index) => {
    const format = formatOfName(file.name);
    const read = columnsOf(file, index);
    const columns = read === null ? null : [...read].sort();
    const key = JSON.stringify([format, columns]);
    const group = groups.get(key) ?? { format, files: [], columns };
    group.files.push(file);
    groups.set(key, group);
  });
  return [...groups.values()];
}

/** A name per group, from its files' names; a name proposed twice gets `_2`, `_3`… */
export function proposeTags(groups: readonly { files: readonly { name: string }[] }[]): string[] {
  const used = new Set<string>();
  return groups.map((group) => {
    const base = proposeTag(group.files.map((file) => file.name));
    let tag = base;
    for (let n = 2; used.has(tag); n += 1) tag = `${base.slice(0, 96)}_${n}`;
    used.add(tag);
    return tag;
  });
}
