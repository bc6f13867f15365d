/** Failures of the Delta engine; the services map them to domain errors. */
export class DeltaError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DeltaError';
  }
}

/** The table needs a protocol feature this engine doesn't implement; nothing was read or written. */
export class UnsupportedTableFeature extends DeltaError {
  constructor(
    readonly feature: string,
    message: string,
  ) {
    super(message);
    this.name = 'UnsupportedTableFeature';
  }
}

/** No `_delta_log` commits under the table root. */
export class DeltaTableNotFound extends DeltaError {
  constructor(readonly root: string) {
    super(`no Delta table at ${root}`);
    this.name = 'DeltaTableNotFound';
  }
}

/** The version doesn't exist yet, or its log was cleaned up and no checkpoint reaches it. */
export class DeltaVersionNotFound extends DeltaError {
  constructor(
    readonly root: string,
    readonly version: number,
    detail: string,
  ) {
    super(`version ${version} of the Delta table at ${root} ${detail}`);
    this.name = 'DeltaVersionNotFound';
  }
}

/** A log file that breaks the protocol (bad JSON, a missing commit in the middle, …). */
export class DeltaLogCorrupt extends DeltaError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DeltaLogCorrupt';
  }
}

/**
 * The commit could not be made: other writers kept winning the next version, or one of them
 * removed a file this commit meant to remove (the caller should redo its work on the new version).
 */
export class CommitConflict extends DeltaError {
  constructor(message: string) {
    super(message);
    this.name = 'CommitConflict';
  }
}

/** New data whose columns don't fit the table's schema. */
export class SchemaMismatch extends DeltaError {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaMismatch';
  }
}
