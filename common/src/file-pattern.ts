import { RE2JS } from 're2js';

/**
 * Collection patterns and `runs_regex` come from any editor and are matched against paths that
 * uploaders choose, on the server's event loop. A backtracking engine (JavaScript's RegExp) can
 * take exponential time on patterns like `(a+)+b`, so they are matched with RE2 semantics
 * (re2js, a pure-JavaScript port of RE2): time linear in the path, whatever the pattern.
 */

/** Longer paths never match: bounds each match along with the pattern's own 1,000 characters. */
export const PATTERN_MAX_INPUT = 4096;

/** A pattern that is not valid in the RE2 dialect; the message says what and where. */
export class FilePatternError extends Error {
  override name = 'FilePatternError';
}

export interface FilePattern {
  readonly source: string;
  /** Named groups in order of appearance: the columns they add. */
  readonly columns: readonly string[];
  /** The named groups' values when the pattern matches, otherwise null. */
  match(input: string): Record<string, string> | null;
  test(input: string): boolean;
}

const cache = new Map<string, FilePattern>();
const CACHE_SIZE = 256;

/**
 * Compiles a pattern of the RE2 dialect. `whole` (collection patterns) matches the entire path;
 * otherwise (`runs_regex`) the pattern may match anywhere in the input, like `RegExp.test`.
 */
export function compileFilePattern(source: string, mode: 'whole' | 'search' = 'whole'): FilePattern {
  const key = `${mode}\u0000${source}`;
  const cached = cache.get(key);
  if (cached) return cached;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source);
  } catch (error) {
    throw new FilePatternError(describe(error));
  }
  const groups = Object.entries(compiled.namedGroups()).sort(([, a], [, b]) => a - b);
  const columns = groups.map(([name]) => name);
  const run = (input: string) => {
    if (input.length > PATTERN_MAX_INPUT) return null;
    const matcher = compiled.matcher(input);
    return (mode === 'whole' ? matcher.matches() : matcher.find()) ? matcher : null;
  };
  const pattern: FilePattern = {
    source,
    columns,
    match(input) {
      const matcher = run(input);
      if (!matcher) return null;
      const values: Record<string, string> = {};
      for (const name of columns) {
        const value = matcher.group(name);
        if (value !== null) values[name] = value;
      }
      return values;
    },
    test: (input) => run(input) !== null,
  };
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(key, pattern);
  return pattern;
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^error parsing regexp: /, '');
}
