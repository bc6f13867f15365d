/**
 * Serializes commits to a table across writers and replicas: a writer may write the log file of
 * version N only after winning the claim on (table, N). The server keeps claims as unique rows in
 * the metadata database (`KyselyCommitClaims`); tests use `InMemoryCommitClaims`.
 */
export interface CommitClaims {
  /** True when this writer won `version` of the table; false when another writer holds it. */
  claim(tableId: string, version: number): Promise<boolean>;
  /**
   * Takes over a claim made before `claimedBefore` whose log file never appeared (its writer died
   * between claim and write); true when this writer now holds it. Optional: without it such a
   * version stays blocked until its claim is deleted.
   */
  reclaimStale?(tableId: string, version: number, claimedBefore: Date): Promise<boolean>;
  /** Drops every claim of a table (when the table itself is deleted). */
  forget(tableId: string): Promise<void>;
}

/** Claims in this process's memory: for tests and single-process tools. */
export class InMemoryCommitClaims implements CommitClaims {
  private readonly claims = new Map<string, Map<number, number>>();

  // Reads `Date.now` at each call rather than keeping the function, so a test's clock applies.
  constructor(private readonly now: () => number = () => Date.now()) {}

  async claim(tableId: string, version: number): Promise<boolean> {
    const table = this.claims.get(tableId) ?? new Map<number, number>();
    this.claims.set(tableId, table);
    if (table.has(version)) return false;
    table.set(version, this.now());
    return true;
  }

  async reclaimStale(tableId: string, version: number, claimedBefore: Date): Promise<boolean> {
    const table = this.claims.get(tableId);
    const claimedAt = table?.get(version);
    if (table === undefined || claimedAt === undefined || claimedAt >= claimedBefore.getTime()) return false;
    table.set(version, this.now());
    return true;
  }

  async forget(tableId: string): Promise<void> {
    this.claims.delete(tableId);
  }

  /** The versions claimed for a table, in order (for tests). */
  versions(tableId: string): number[] {
    return [...(this.claims.get(tableId)?.keys() ?? [])].sort((a, b) => a - b);
  }
}
