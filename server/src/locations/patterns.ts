import { compileFilePattern, type FilePattern, FilePatternError } from '@service/common';
import { DomainError } from '../errors.js';

/**
 * A data collection's file pattern: a regular expression of the RE2 dialect matched against the
 * whole path relative to the run folder, in time linear in the path. Named groups become columns.
 */
export function compilePattern(pattern: string, path = 'body.pattern'): FilePattern {
  return compileOrRefuse(pattern, 'whole', path, 'the file pattern is not a valid regular expression');
}

/** A workflow's `runs_regex`: which sub-folders of a location are runs (matched anywhere in the name). */
export function compileRunsRegex(pattern: string, path: string): FilePattern {
  return compileOrRefuse(pattern, 'search', path, 'runs_regex is not a valid regular expression');
}

function compileOrRefuse(pattern: string, mode: 'whole' | 'search', path: string, title: string): FilePattern {
  try {
    return compileFilePattern(pattern, mode);
  } catch (error) {
    if (!(error instanceof FilePatternError)) throw error;
    throw new DomainError('validation_failed', title, [{ path, message: error.message }]);
  }
}
