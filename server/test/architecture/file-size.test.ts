import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repository = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGES = ['server/src', 'cli/src', 'common/src', 'web/src', 'bench/src'];
/**
 * The house rule is "a file does one thing, none over ~400 lines"; a little slack keeps a file
 * that just reached the limit from failing the build for a doc comment.
 */
const MAX_LINES = 420;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('source files', () => {
  it(`stay under ${MAX_LINES} lines each, so each keeps to one concern`, () => {
    const files = PACKAGES.flatMap((folder) => sourceFiles(join(repository, folder)));
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .map((file) => ({ file: relative(repository, file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});
