import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url);
const read = (path: string) => JSON.parse(readFileSync(new URL(path, root), 'utf8'));

interface LockedPackage {
  version?: string;
  engines?: { node?: string } | string[];
  optional?: boolean;
  os?: string[];
  cpu?: string[];
}

/**
 * `npm install` warns EBADENGINE for a package that refuses the running Node. A new user may run
 * the oldest Node the project declares, so every package the lock file installs must accept it
 * (package.json `overrides` pin older releases where a dependency moved on).
 */
describe('the installed packages accept the oldest Node the project supports', () => {
  const declared: string = read('package.json').engines.node;
  const oldest = semver.minVersion(declared)?.version as string;

  it('declares a Node range', () => {
    expect(oldest).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('finds no package whose engines refuse it', () => {
    const packages: Record<string, LockedPackage> = read('package-lock.json').packages;
    const refusing = Object.entries(packages).flatMap(([path, info]) => {
      const range = Array.isArray(info.engines) ? undefined : info.engines?.node;
      // Other platforms' optional binaries are never installed here.
      if (range === undefined || (info.optional && (info.os || info.cpu))) return [];
      return semver.satisfies(oldest, range) ? [] : [`${path}@${info.version}: node ${range}`];
    });
    expect(refusing).toEqual([]);
  });
});
