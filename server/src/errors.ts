/**
 * Failures the domain knows about. Services throw these without knowing HTTP; the HTTP layer
 * maps each code to a status (http/problem.ts), so the code is the stable contract.
 */
export type ErrorCode =
  | 'not_found'
  | 'validation_failed'
  | 'malformed_body'
  | 'malformed_request'
  | 'headers_too_large'
  | 'request_timeout'
  | 'unauthenticated'
  | 'invalid_credentials'
  | 'invalid_key'
  | 'access_code_invalid'
  | 'token_invalid'
  | 'forbidden'
  | 'cross_origin_request'
  | 'host_not_allowed'
  | 'registration_disabled'
  | 'password_login_disabled'
  | 'email_taken'
  | 'last_admin'
  | 'self_deletion'
  | 'job_ended'
  | 'no_data'
  | 'component_unavailable'
  | 'name_taken'
  | 'location_not_allowed'
  | 'invalid_project_definition'
  | 'rate_limited'
  | 'payload_too_large'
  | 'request_too_large'
  | 'time_limit_exceeded'
  | 'range_not_satisfiable'
  | 'precondition_failed'
  | 'unsupported_media_type'
  | 'service_unavailable'
  | 'internal_error';

/** One failed input field: where it is (`body.owners[2]`, `workflows[0].pattern`) and what is wrong. */
export interface FieldProblem {
  path: string;
  message: string;
  line?: number;
  column?: number;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldProblem[],
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** A 429: the caller should retry after `retryAfterSeconds` (the answer's `Retry-After`). */
export class RetryLaterError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('rate_limited', message);
    this.name = 'RetryLaterError';
  }
}

export const notFound = (what: string) => new DomainError('not_found', `${what} was not found`);

/** `a.b[0].c` from a path of keys and indexes. */
export function formatPath(prefix: string | undefined, path: ReadonlyArray<PropertyKey>): string {
  let out = prefix ?? '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}
