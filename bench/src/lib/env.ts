import { UsageError } from './usage-error.js';

/** A whole-number setting from the environment (`_` allowed as a digit separator), or `fallback`. */
export function wholeFromEnv(name: string, fallback: number, minimum: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw.replaceAll('_', ''));
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw new UsageError(`${name} must be a whole number >= ${minimum} (got "${raw}")`);
  }
  return value;
}
