import { DomainError } from '../errors.js';

/**
 * A data collection's file pattern: an ECMAScript regex matched against the whole path relative
 * to the run folder. Named groups become columns.
 */
export function compilePattern(pattern: string, path = 'body.pattern'): RegExp {
  try {
    return new RegExp(`^(?:${pattern})$`, 'u');
  } catch (error) {
    throw new DomainError('validation_failed', 'the file pattern is not a valid regular expression', [
      { path, message: (error as Error).message },
    ]);
  }
}

/** Named groups of a pattern, in order: the columns they add. */
export function patternColumns(pattern: RegExp): string[] {
  const names: string[] = [];
  for (const match of pattern.source.matchAll(/\(\?<([A-Za-z_$][\w$]*)>/g)) if (match[1]) names.push(match[1]);
  return names;
}
