import type { DashboardComponent, DashboardFilter } from '@service/common';
import { componentError } from '../../analytics/index.js';
import type { DataLimits } from '../../config/data-limits.js';
import { currentBounds } from '../../engine/bounded-work.js';
import { DomainError } from '../../errors.js';
import { answerJson } from './answer-json.js';

/** A component's result as the data service yields it (`ComponentResult`), as far as the budget reads it. */
interface BudgetedResult {
  component_id: string;
  data: unknown;
  failure?: DomainError;
}

/** The limits a data request is checked against before any work (a slice of `DataLimits`). */
export type RequestSizeLimits = Pick<DataLimits, 'maxFilterValues' | 'maxPreviewComponents'>;

/**
 * Refuses, before anything is read or computed, a request carrying more filter values (all
 * filters together: list entries, range bounds, a search or switch counting one) or more preview
 * components than one request may: 413 `request_too_large` naming the limit.
 */
export function checkRequestSize(
  limits: RequestSizeLimits,
  request: { filters?: readonly DashboardFilter[]; preview?: readonly DashboardComponent[] | undefined },
): void {
  const previews = request.preview?.length ?? 0;
  if (previews > limits.maxPreviewComponents) {
    throw new DomainError(
      'request_too_large',
      `${previews} preview components is more than one request may compute (${limits.maxPreviewComponents}, SERVICE_DATA_MAX_PREVIEW_COMPONENTS); preview fewer at a time`,
    );
  }
  const values = (request.filters ?? []).reduce(
    (sum, filter) => sum + (Array.isArray(filter.value) ? filter.value.length : 1),
    0,
  );
  if (values > limits.maxFilterValues) {
    throw new DomainError(
      'request_too_large',
      `the filters carry ${values} values, more than one request may (${limits.maxFilterValues}, SERVICE_DATA_MAX_FILTER_VALUES); select fewer values`,
    );
  }
}

/**
 * Passes the components' results on, each with its JSON (made once here, and written as is by the
 * routes), while their JSON stays within `maxBytes` all together (about: UTF-16 units). The one
 * that goes beyond, and every one after, answers `request_too_large` in its slot, and the rest of
 * the request's work is stopped: nothing more is computed for an answer that will not be sent.
 */
export async function* withinAnswerBudget<T extends BudgetedResult>(
  results: AsyncIterable<T>,
  maxBytes: number,
): AsyncGenerator<(T | (BudgetedResult & { data: ReturnType<typeof componentError> })) & { json: string }> {
  let used = 0;
  let over: DomainError | undefined;
  for await (const result of results) {
    if (over === undefined) {
      const json = answerJson(result.data);
      used += json.length;
      if (used <= maxBytes) {
        yield { ...result, json };
        continue;
      }
      over = answerTooLarge(maxBytes);
      currentBounds()?.stop(over);
    }
    const data = componentError(over.code, over.message);
    yield { component_id: result.component_id, data, failure: over, json: JSON.stringify(data) };
  }
}

function answerTooLarge(maxBytes: number): DomainError {
  return new DomainError(
    'request_too_large',
    `the answer grew beyond ${Math.round(maxBytes / 1024 ** 2)} MiB (SERVICE_DATA_MAX_ANSWER_BYTES); ask for fewer components at a time`,
  );
}
