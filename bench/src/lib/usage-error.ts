/** A mistake in how a benchmark was asked for (arguments, environment): exit code 2, like an unknown name. */
export class UsageError extends Error {
  override name = 'UsageError';
}
