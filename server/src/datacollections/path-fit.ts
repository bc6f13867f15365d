import type { PathFit } from '@service/common';
import { compilePattern } from '../locations/patterns.js';

/** A collection's pattern is at most this long (the request schemas' limit). */
const PATTERN_MAX_LENGTH = 1000;

/** A literal text as an RE2 pattern: every character with a meaning of its own escaped. */
export function literalPattern(text: string): string {
  return text.replace(/[\\.^$|?*+()[\]{}]/g, '\\$&');
}

/**
 * Whether `path` fits the collection's pattern and, when it does not, the two ways to make it fit
 * (issue 26, item 2): the pattern widened by this one path, or a path with the same file name in a
 * folder the pattern already takes: a folder of the collection's files, the collection's own
 * folder (Add data's layout), the run folder itself.
 */
export function pathFit(
  collection: { tag: string; pattern: string },
  path: string,
  knownPaths: readonly string[],
): PathFit {
  const pattern = compilePattern(collection.pattern);
  const matches = pattern.test(path);
  const widened = `(?:${collection.pattern})|${literalPattern(path)}`;
  const name = path.slice(path.lastIndexOf('/') + 1);
  const folders = new Set(knownPaths.map((known) => known.slice(0, known.lastIndexOf('/') + 1)));
  const candidates = [...[...folders].map((folder) => `${folder}${name}`), `${collection.tag}/${name}`, name];
  return {
    path,
    matches,
    pattern: collection.pattern,
    pattern_with_path: matches || widened.length > PATTERN_MAX_LENGTH ? null : widened,
    rename_to: matches ? null : (candidates.find((candidate) => candidate !== path && pattern.test(candidate)) ?? null),
  };
}

/** The refusal's words for an upload whose path the pattern does not take: both ways out. */
export function pathMismatchMessage(fit: PathFit): string {
  const rename = fit.rename_to === null ? 'under a path the pattern takes' : `as ${fit.rename_to}`;
  return `${fit.path} does not match the collection's file pattern ${fit.pattern}: upload it ${rename} (the field \`path\`), or add it to the pattern (PATCH /datacollections/{id} with \`pattern\`; the web app's upload offers both)`;
}
