/** A data request prepared to be computed, and its answer as a whole (`DashboardDataService`). */
import type { ComponentData, DashboardDataAnswer } from '@service/common';
import { stoppedReason } from '../../engine/bounded-work.js';
import type { DomainError } from '../../errors.js';

/** One component's answer, or the domain failure that stopped it. */
export interface ComponentResult {
  component_id: string;
  data: ComponentData;
  /** Why `data` is an error, when a client mistake (a filter value of the wrong type) caused it. */
  failure?: DomainError;
}

/** A component's result with its data as JSON text, ready to be written. */
export interface AnsweredComponent extends ComponentResult {
  json: string;
}

/** An answer ready to be computed: the versions read, and the components as each finishes. */
export interface PreparedData {
  version: DashboardDataAnswer['version'];
  components(): AsyncGenerator<AnsweredComponent>;
}

/**
 * Every component's result, once all are computed; a client mistake found while computing is a
 * 400, an answer beyond its size a 413, and work stopped (time limit, shutdown) fails as a whole.
 */
export async function whole(prepared: PreparedData): Promise<AnsweredComponent[]> {
  const results: AnsweredComponent[] = [];
  for await (const result of prepared.components()) {
    const code = result.failure?.code;
    if (code === 'validation_failed' || code === 'request_too_large') throw result.failure;
    results.push(result);
  }
  const stopped = stoppedReason();
  if (stopped) throw stopped;
  return results;
}
