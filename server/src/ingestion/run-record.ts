import type { DataCollectionsTable, IngestionRunsTable } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import type { UpsertAnswer } from '../deltatables/upsert.js';
import { DomainError } from '../errors.js';
import type { CollectionResult, Step } from './presenters.js';

/** Writes the run's row; the service's query writes only while the run is still active. */
export type RunWriter = (values: Partial<IngestionRunsTable>) => Promise<unknown>;

/**
 * What one ingestion run records as it goes: its steps, each collection's result and the source
 * paths scanned, saved with the run's row after every change so a reader follows the progress.
 */
export class RunRecord {
  private readonly steps: Step[] = [];
  private readonly results: CollectionResult[] = [];
  private readonly sourcePaths: string[] = [];

  constructor(
    private readonly write: RunWriter,
    private readonly signal: AbortSignal,
  ) {}

  /** Saves the record, with these other columns of the run. */
  save(values: Partial<IngestionRunsTable> = {}): Promise<unknown> {
    return this.write({
      steps: JSON.stringify(this.steps),
      data_collections: JSON.stringify(this.results),
      source_paths: JSON.stringify(this.sourcePaths),
      ...values,
    });
  }

  /** Runs one step, recorded as running, then as a success, a failure (with its message) or cancelled. */
  async step<T>(name: string, work: (entry: Step) => Promise<T>): Promise<T> {
    const entry: Step = { name, status: 'running', started_at: isoNow(), finished_at: null, detail: null };
    this.steps.push(entry);
    await this.save();
    try {
      const value = await work(entry);
      entry.status = 'success';
      return value;
    } catch (error) {
      entry.status = this.signal.aborted ? 'cancelled' : 'failed';
      entry.detail = messageOf(error);
      throw error;
    } finally {
      entry.finished_at = isoNow();
      await this.save();
    }
  }

  scanned(sourcePaths: readonly string[]): void {
    this.sourcePaths.push(...sourcePaths);
  }

  upserted(collection: DataCollectionsTable, answer: UpsertAnswer): void {
    const { version, rows } = answer;
    this.results.push({ ...about(collection), status: 'success', version, rows, error: null });
  }

  upsertFailed(collection: DataCollectionsTable, error: unknown): void {
    this.results.push({ ...about(collection), status: 'failed', version: null, rows: null, error: messageOf(error) });
  }

  /**
   * Ends the run by its collections: `success`, `partial` (some failed) or `failed` (all did,
   * which throws so the run's job fails too).
   */
  async finish(): Promise<IngestionRunsTable['status']> {
    const failed = this.results.filter((result) => result.status === 'failed').length;
    const status = failed === 0 ? 'success' : failed < this.results.length ? 'partial' : 'failed';
    await this.save({
      status,
      finished_at: isoNow(),
      error:
        status === 'failed'
          ? JSON.stringify({ code: 'ingestion_failed', message: 'every data collection failed' })
          : null,
    });
    if (status === 'failed') {
      throw new DomainError('validation_failed', 'every data collection failed; see the ingestion run');
    }
    return status;
  }

  /** Ends the run as failed by this error, or cancelled. */
  fail(error: unknown): Promise<unknown> {
    const cancelled = this.signal.aborted;
    return this.save({
      status: cancelled ? 'cancelled' : 'failed',
      finished_at: isoNow(),
      error: JSON.stringify({
        code: cancelled ? 'cancelled' : error instanceof DomainError ? error.code : 'ingestion_failed',
        message: messageOf(error),
      }),
    });
  }
}

function about(collection: DataCollectionsTable): Pick<CollectionResult, 'data_collection_id' | 'tag'> {
  return { data_collection_id: collection.id, tag: collection.tag };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
