import type {} from 'vitest';

// Shared between the S3 global setup (which provides the values) and the test helpers (which inject
// them), so both see the same typed keys.
declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * Endpoint of an S3-compatible service to create test buckets on (path-style, region
     * us-east-1), or '' when none is available and S3 suites must skip.
     */
    s3Endpoint: string;
    /** Credentials for `s3Endpoint`. */
    s3Credentials: { accessKeyId: string; secretAccessKey: string };
  }
}
