import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * Every image the documentation shows is in the repository: a screenshot referenced from
 * README.md or docs/*.md but never saved (or renamed since) would show as a broken image.
 */
const repository = fileURLToPath(new URL('../../../', import.meta.url));
/** `![alt](path)` and `<img src="path">`, but not addresses on the web. */
const IMAGE = /!\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)|<img[^>]*\bsrc="([^"]+)"/g;

function documents(): string[] {
  const docs = readdirSync(join(repository, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(repository, 'docs', name));
  return [join(repository, 'README.md'), ...docs];
}

function images(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMAGE)]
    .map((match) => match[1] ?? match[2] ?? '')
    .filter((path) => !/^[a-z]+:/i.test(path));
}

describe('images of the documentation', () => {
  it('are each in the repository where the document points', () => {
    const referenced = documents().flatMap((file) =>
      images(file).map((path) => ({ document: relative(repository, file), path: join(dirname(file), path) })),
    );
    expect(referenced.length).toBeGreaterThan(20);
    const missing = referenced
      .filter(({ path }) => !existsSync(path))
      .map(({ document, path }) => `${document}: ${relative(repository, path)}`);
    expect(missing).toEqual([]);
  });
});
