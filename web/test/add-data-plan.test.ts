import { tagSchema } from '@service/common';
import { describe, expect, it } from 'vitest';
import {
  formatOfName,
  groupFiles,
  nullMarkersOf,
  PREVIEW_HEAD_BYTES,
  PREVIEW_WHOLE_MAX_BYTES,
  patternFor,
  previewable,
  previewPartOf,
  proposeTag,
  proposeTags,
  readOptionsOf,
  tagProblem,
  uploadPathFor,
} from '../src/adddata/plan.js';

describe('Add data’s choices', () => {
  it('proposes a collection name from the files’ names, always a valid one', () => {
    expect(proposeTag(['soil-samples.csv'])).toBe('soil-samples');
    expect(proposeTag(['penguins_2023.csv', 'penguins_2024.csv'])).toBe('penguins_202');
    expect(proposeTag(['Penguins 2023.csv', 'Penguins 2024.csv'])).toBe('penguins_202');
    expect(proposeTag(['counts.tsv.gz'])).toBe('counts');
    expect(proposeTag(['__Résumé (final).json'])).toBe('r_sum_final');
    expect(proposeTag(['a.csv', 'b.csv'])).toBe('data');
    for (const names of [['x.csv'], ['.csv'], ['ß.parquet'], ['2024 data.csv']]) {
      expect(tagSchema.safeParse(proposeTag(names)).success, names[0]).toBe(true);
    }
    expect(tagProblem('soil samples')).not.toBeNull();
    expect(tagProblem('soil_samples')).toBeNull();
  });

  it('splits files into one collection per format and set of column names', () => {
    const columns: Record<string, string[] | null> = {
      'soil-2023.csv': ['sample', 'ph'],
      'soil-2024.csv': ['ph', 'sample'],
      'weather.csv': ['day', 'rain'],
      'soil.parquet': ['sample', 'ph'],
      'broken.csv': null,
      'notes.xlsx': null,
    };
    const files = Object.keys(columns).map((name) => ({ name }));
    const groups = groupFiles(files, (file) => columns[file.name] ?? null);
    expect(groups.map((group) => [group.format, group.columns, group.files.map((file) => file.name)])).toEqual([
      ['csv', ['ph', 'sample'], ['soil-2023.csv', 'soil-2024.csv']],
      ['csv', ['day', 'rain'], ['weather.csv']],
      ['parquet', ['ph', 'sample'], ['soil.parquet']],
      ['csv', null, ['broken.csv']],
      [null, null, ['notes.xlsx']],
    ]);
    // Each its own name, never one twice.
    expect(proposeTags(groups)).toEqual(['soil-202', 'weather', 'soil', 'broken', 'notes']);
    expect(
      proposeTags([{ files: [{ name: 'a.csv' }] }, { files: [{ name: 'a.tsv' }] }, { files: [{ name: 'a.json' }] }]),
    ).toEqual(['a', 'a_2', 'a_3']);
  });

  it('tells the format by the name, as the server does', () => {
    expect(formatOfName('a.CSV')).toBe('csv');
    expect(formatOfName('a.txt')).toBe('tsv');
    expect(formatOfName('a.jsonl')).toBe('ndjson');
    expect(formatOfName('a.csv.gz')).toBe('csv');
    expect(formatOfName('a.xlsx')).toBeNull();
  });

  it('keeps each collection’s files in a folder its pattern takes whole', () => {
    const pattern = new RegExp(`^(?:${patternFor('soil.v2')})$`);
    expect(pattern.test(uploadPathFor('soil.v2', 'samples 2024.csv'))).toBe(true);
    expect(pattern.test(uploadPathFor('soilxv2', 'samples.csv'))).toBe(false);
    expect(pattern.test('soil.v2/deeper/samples.csv')).toBe(false);
  });

  it('sends a text file’s first lines only, cut at a line break; Parquet and JSON whole', async () => {
    const line = `${'x'.repeat(99)}\n`;
    const big = new Blob([line.repeat(Math.ceil((PREVIEW_HEAD_BYTES * 1.5) / line.length))]);
    const head = await previewPartOf(big, 'csv');
    expect(head.size).toBeLessThanOrEqual(PREVIEW_HEAD_BYTES);
    expect(head.size % line.length).toBe(0);
    expect(await previewPartOf(big, 'parquet')).toBe(big);
    const small = new Blob(['a\n1\n']);
    expect(await previewPartOf(small, 'csv')).toBe(small);
    // Too big to send whole: no preview; a text file of any size has one.
    const huge = { size: PREVIEW_WHOLE_MAX_BYTES + 1 } as Blob;
    expect(previewable(huge, 'parquet')).toBe(false);
    expect(previewable(huge, 'json')).toBe(false);
    expect(previewable(huge, 'csv')).toBe(true);
    expect(previewable(big, 'parquet')).toBe(true);
  });

  it('reads the missing-value markers, and stores only what CSV and TSV use', () => {
    expect(nullMarkersOf(' NA, N/A ,,NA, null', true)).toEqual(['NA', 'N/A', 'null', '']);
    expect(nullMarkersOf('', false)).toEqual([]);
    const choices = { delimiter: ';', header: true, nullMarkers: ['NA'], types: { plot: 'string' as const } };
    expect(readOptionsOf({ format: 'csv', ...choices })).toEqual({
      delimiter: ';',
      header: true,
      null_values: ['NA'],
      columns: { plot: 'string' },
    });
    expect(readOptionsOf({ format: 'csv', ...choices, delimiter: undefined, types: {} })).toEqual({
      header: true,
      null_values: ['NA'],
    });
    expect(readOptionsOf({ format: 'parquet', ...choices })).toEqual({});
  });
});
