import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repository = fileURLToPath(new URL('../../../', import.meta.url));
const FOLDERS = [
  'server/src',
  'server/test',
  'server/export-page',
  'cli/src',
  'common/src',
  'web/src',
  'bench/src',
  'test',
];
const DOCUMENT = 'docs/architecture.md';
/** `docs/architecture.md "Permissions"`, `docs/architecture.md "Permissions", "Dashboards"`. */
const CITATION = /docs\/architecture\.md((?:,? "[^"\n]+")+)/g;
/** A section sign cited without a document before it: a section of a document not in this repository. */
const LOOSE_SECTION = /(?<!(?:RFC \d+|spec) )§ ?\d/;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The `##` sections of the architecture document. */
function sections(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^## (.+)$/gm)].map((match) => (match[1] as string).trim()));
}

/** Each cited section name, with where it is cited. */
function citations(text: string): string[] {
  return [...text.matchAll(CITATION)].flatMap((match) =>
    [...(match[1] as string).matchAll(/"([^"]+)"/g)].map((name) => name[1] as string),
  );
}

describe('citations of the architecture document', () => {
  // This file's own examples are not citations.
  const self = fileURLToPath(import.meta.url);
  const files = FOLDERS.flatMap((folder) => sourceFiles(join(repository, folder))).filter((file) => file !== self);
  const known = sections(readFileSync(join(repository, DOCUMENT), 'utf8'));

  it('name sections the document has', () => {
    const cited = files.flatMap((file) =>
      citations(readFileSync(file, 'utf8')).map((name) => ({ file: relative(repository, file), name })),
    );
    expect(cited.length).toBeGreaterThan(20);
    expect(cited.filter(({ name }) => !known.has(name))).toEqual([]);
  });

  it('cite no section of a document outside the repository (only RFCs and the spec by number)', () => {
    const loose = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) => (LOOSE_SECTION.test(line) ? [`${relative(repository, file)}:${index + 1}`] : [])),
    );
    expect(loose).toEqual([]);
  });

  it('finds a citation of a missing section', () => {
    const text = 'see docs/architecture.md "Permissions", "No such part" and docs/architecture.md "Jobs"';
    expect(citations(text)).toEqual(['Permissions', 'No such part', 'Jobs']);
    expect(citations(text).filter((name) => !known.has(name))).toEqual(['No such part']);
    expect(LOOSE_SECTION.test('(ARCHITECTURE.md §11)')).toBe(true);
    expect(LOOSE_SECTION.test('(RFC 9110 §13.1.1)')).toBe(false);
  });
});
