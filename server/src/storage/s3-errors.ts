import { S3ServiceException } from '@aws-sdk/client-s3';

/** An S3 request that failed for another reason than a missing object; the SDK's error is the cause. */
export class S3StorageError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'S3StorageError';
  }
}

/** The object (not the bucket) does not exist. */
export function isMissingObject(error: unknown): boolean {
  const name = nameOf(error);
  return name === 'NoSuchKey' || name === 'NotFound' || (statusOf(error) === 404 && name !== 'NoSuchBucket');
}

/**
 * One line that says what was attempted (`what`: the operation and the object) against which
 * endpoint (`where`), and why it failed; the SDK's error is the cause.
 */
export function s3Failure(what: string, where: string, error: unknown): Error {
  if (error instanceof S3StorageError) return error;
  const attempts = attemptsOf(error);
  const after = attempts !== undefined && attempts > 1 ? ` after ${attempts} attempts` : '';
  let reason: string;
  if (error instanceof S3ServiceException) {
    const status = error.$metadata.httpStatusCode;
    // Answers to HEAD requests have no body, so the SDK knows only the status ("UnknownError").
    reason =
      error.message !== '' && error.message !== 'UnknownError'
        ? `${error.name} (HTTP ${status ?? '?'}): ${error.message}`
        : `HTTP ${status ?? '?'}${status === 403 ? ' Forbidden (check the credentials and the bucket policy)' : ''}`;
  } else {
    const code = codeOf(error);
    const message = error instanceof Error ? error.message : String(error);
    const detail = code === undefined || message.includes(code) ? message : `${code} ${message}`;
    reason = `cannot reach ${where}: ${detail.trim() || 'network error'}`;
  }
  return new S3StorageError(`S3 ${what} failed${after}: ${reason}`, { cause: error });
}

function field(error: unknown, name: string): unknown {
  return typeof error === 'object' && error !== null && name in error
    ? (error as Record<string, unknown>)[name]
    : undefined;
}

export function nameOf(error: unknown): string | undefined {
  const name = field(error, 'name');
  return typeof name === 'string' ? name : undefined;
}

function codeOf(error: unknown): string | undefined {
  const code = field(error, 'code');
  return typeof code === 'string' ? code : undefined;
}

function metadataOf(error: unknown): Record<string, unknown> | undefined {
  const metadata = field(error, '$metadata');
  return typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>) : undefined;
}

/** Errors that came out of the SDK's request pipeline carry `$metadata`; a body stream's do not. */
export function isSdkError(error: unknown): boolean {
  return metadataOf(error) !== undefined;
}

export function statusOf(error: unknown): number | undefined {
  const status = metadataOf(error)?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
}

function attemptsOf(error: unknown): number | undefined {
  const attempts = metadataOf(error)?.attempts;
  return typeof attempts === 'number' ? attempts : undefined;
}
