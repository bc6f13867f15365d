import type { FieldError, Problem } from '@service/common';
import type { ErrorCode } from '../errors.js';

const statusAndTitle: Record<ErrorCode, [number, string]> = {
  not_found: [404, 'Not Found'],
  validation_failed: [400, 'Validation Failed'],
  malformed_body: [400, 'Malformed Request Body'],
  malformed_request: [400, 'Malformed Request'],
  headers_too_large: [431, 'Request Header Fields Too Large'],
  request_timeout: [408, 'Request Timeout'],
  unauthenticated: [401, 'Authentication Required'],
  invalid_credentials: [401, 'Invalid Credentials'],
  invalid_key: [401, 'Invalid Key'],
  access_code_invalid: [403, 'Access Code Invalid'],
  token_invalid: [401, 'Invalid Token'],
  forbidden: [403, 'Forbidden'],
  cross_origin_request: [403, 'Cross-Origin Request Refused'],
  host_not_allowed: [403, 'Host Not Allowed'],
  registration_disabled: [403, 'Registration Disabled'],
  password_login_disabled: [403, 'Password Sign-in Disabled'],
  email_taken: [409, 'Email Already Registered'],
  last_admin: [409, 'Last Administrator'],
  self_deletion: [409, 'Cannot Delete Own Account'],
  job_ended: [409, 'Job Ended'],
  no_data: [409, 'Nothing To Ingest'],
  component_unavailable: [409, 'Component Unavailable'],
  name_taken: [409, 'Name Already Used'],
  location_not_allowed: [400, 'Location Not Allowed'],
  invalid_project_definition: [400, 'Invalid Project Definition'],
  rate_limited: [429, 'Too Many Requests'],
  payload_too_large: [413, 'Payload Too Large'],
  request_too_large: [413, 'Request Too Large'],
  time_limit_exceeded: [504, 'Time Limit Exceeded'],
  range_not_satisfiable: [416, 'Range Not Satisfiable'],
  precondition_failed: [412, 'Precondition Failed'],
  unsupported_media_type: [415, 'Unsupported Media Type'],
  service_unavailable: [503, 'Service Unavailable'],
  internal_error: [500, 'Internal Server Error'],
};

export function statusOf(code: ErrorCode): number {
  return statusAndTitle[code][0];
}

/** Builds the RFC 9457 body for a code; `type` is a stable URI per code. */
export function problem(
  code: ErrorCode,
  detail?: string,
  extra?: { errors?: FieldError[]; request_id?: string },
): Problem {
  const [status, title] = statusAndTitle[code];
  return {
    type: `urn:service:problem:${code}`,
    title,
    status,
    ...(detail === undefined ? {} : { detail }),
    code,
    ...extra,
  };
}
