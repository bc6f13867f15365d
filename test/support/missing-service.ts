/**
 * What a test run does when a service its suites need (PostgreSQL, S3, Chromium) is missing.
 * Locally: skip those suites with one loud line, so a laptop without Chromium can still run the
 * rest. On CI (`CI` set and not false/0): fail, because a green run that silently skipped a fifth of
 * the suite proves nothing.
 */
export type MissingServiceDecision = 'skip' | 'fail';

export function onCi(environment: NodeJS.ProcessEnv): boolean {
  const value = (environment.CI ?? '').trim().toLowerCase();
  return value !== '' && value !== 'false' && value !== '0';
}

export function decideMissingService(environment: NodeJS.ProcessEnv): MissingServiceDecision {
  return onCi(environment) ? 'fail' : 'skip';
}

/** The error a CI run stops with; its message stands alone, so the stack is left out. */
export class MissingServiceError extends Error {
  constructor(service: string, what: string, reason: string) {
    super(`[${service}] ${what} cannot run on CI: ${reason} (without CI=true they would be skipped)`);
    this.name = 'MissingServiceError';
    this.stack = this.message;
  }
}

/**
 * Acts on a missing service: throws MissingServiceError on CI; otherwise prints the SKIPPING line
 * (through `write`) and returns, and the caller skips.
 */
export function handleMissingService(
  service: string,
  what: string,
  reason: string,
  environment: NodeJS.ProcessEnv = process.env,
  write: (line: string) => void = (line) => process.stderr.write(line),
): void {
  if (decideMissingService(environment) === 'fail') throw new MissingServiceError(service, what, reason);
  write(`[${service}] SKIPPING ${what}: ${reason}\n`);
}
