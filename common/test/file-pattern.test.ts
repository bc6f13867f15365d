import { describe, expect, it } from 'vitest';
import { compileFilePattern, FilePatternError, PATTERN_MAX_INPUT } from '../src/file-pattern.js';

describe('file patterns (RE2 dialect)', () => {
  it('matches the whole path and gives named groups, in either spelling, as columns', () => {
    const pattern = compileFilePattern('(?<island>[^/]+)/(?P<kind>\\w+)\\.csv');
    expect(pattern.columns).toEqual(['island', 'kind']);
    expect(pattern.match('torgersen/measures.csv')).toEqual({ island: 'torgersen', kind: 'measures' });
    expect(pattern.test('runs/torgersen/measures.csv')).toBe(false);
    expect(pattern.test('torgersen/measures.csv.bak')).toBe(false);
  });

  it('searches anywhere in the input in search mode (runs_regex)', () => {
    expect(compileFilePattern('^run_\\d+$', 'search').test('run_12')).toBe(true);
    expect(compileFilePattern('run', 'search').test('my_run_12')).toBe(true);
    expect(compileFilePattern('^run', 'search').test('my_run_12')).toBe(false);
  });

  it('matches a pattern that backtracking engines take exponential time on, at once', () => {
    // With JavaScript's RegExp, 29 characters of this path already took 1.9 s; each one more doubles it.
    const pattern = compileFilePattern('(a+)+b|a*c');
    expect(pattern.test(`${'a'.repeat(4000)}c`)).toBe(true);
    expect(pattern.test('a'.repeat(4000))).toBe(false);
    expect(compileFilePattern('(a|aa)+b').test('a'.repeat(4000))).toBe(false);
  });

  it('never matches a path longer than the bound', () => {
    const pattern = compileFilePattern('a+');
    expect(pattern.test('a'.repeat(PATTERN_MAX_INPUT))).toBe(true);
    expect(pattern.test('a'.repeat(PATTERN_MAX_INPUT + 1))).toBe(false);
  });

  it('refuses what RE2 cannot match in linear time (lookaround, back-references), saying why', () => {
    expect(() => compileFilePattern('(?=a)a')).toThrow(FilePatternError);
    expect(() => compileFilePattern('(a)\\1')).toThrow(/invalid escape sequence/);
    expect(() => compileFilePattern('(unclosed')).toThrow(/missing closing \)/);
  });
});
