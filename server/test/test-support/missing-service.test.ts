import { describe, expect, it } from 'vitest';
import {
  decideMissingService,
  handleMissingService,
  MissingServiceError,
} from '../../../test/support/missing-service.js';

describe('a missing test service (PostgreSQL, S3, Chromium)', () => {
  it.each([
    [{ CI: 'true' }, 'fail'],
    [{ CI: '1' }, 'fail'],
    [{ CI: 'TRUE' }, 'fail'],
    [{ CI: 'false' }, 'skip'],
    [{ CI: '0' }, 'skip'],
    [{ CI: '' }, 'skip'],
    [{}, 'skip'],
  ] as const)('with %o: %s', (environment, decision) => {
    expect(decideMissingService(environment)).toBe(decision);
  });

  it('fails the run on CI, naming the service and why, and prints no SKIPPING line', () => {
    const lines: string[] = [];
    const missing = () =>
      handleMissingService('browser', 'browser suites', '/usr/bin/chromium is missing', { CI: 'true' }, (line) =>
        lines.push(line),
      );
    expect(missing).toThrow(MissingServiceError);
    expect(missing).toThrow('[browser] browser suites cannot run on CI: /usr/bin/chromium is missing');
    expect(lines).toEqual([]);
  });

  it('skips locally with one loud line', () => {
    const lines: string[] = [];
    handleMissingService('s3', 'S3 suites', 'Swift did not start', {}, (line) => lines.push(line));
    expect(lines).toEqual(['[s3] SKIPPING S3 suites: Swift did not start\n']);
  });
});
