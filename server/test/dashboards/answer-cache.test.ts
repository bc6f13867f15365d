import type { ComponentData } from '@service/common';
import { describe, expect, it } from 'vitest';
import type { TableSnapshot } from '../../../server/src/analytics/index.js';
import { answerJson } from '../../../server/src/dashboards/data/answer-json.js';
import { AnswerCache, type AnswerKey } from '../../../server/src/dashboards/data/cache.js';
import { withinBounds } from '../../../server/src/engine/bounded-work.js';
import { DomainError } from '../../../server/src/errors.js';
import { workBounds } from '../engine/support.js';

/** A snapshot as the key sees it: the Delta table's id and the version read (null: no table). */
function source(tableId: string | null, version = 0): TableSnapshot {
  const snapshot = tableId === null ? null : ({ metadata: { id: tableId }, version } as TableSnapshot['snapshot']);
  return { snapshot } as TableSnapshot;
}

const key = (component: string, version = 0, filters = '[]', tableId: string | null = 'table-a'): AnswerKey => ({
  component: { component_id: component, type: 'card', agg: 'count' },
  tables: [{ collection: 'dc', source: source(tableId, version) }],
  filters,
});

const card = (value: number): ComponentData => ({ value, unfiltered_value: value });

describe('the dashboard answer cache', () => {
  it('answers from memory for the same component, table versions and filters, and recomputes otherwise', async () => {
    const cache = new AnswerCache();
    let computed = 0;
    const compute = (value: number) => async () => {
      computed++;
      return card(value);
    };
    expect(await cache.answer(key('n'), compute(1))).toEqual(card(1));
    expect(await cache.answer(key('n'), compute(2))).toEqual(card(1));
    expect(computed).toBe(1);
    // A new version, other filters, a table written again from scratch (same version number): new answers.
    expect(await cache.answer(key('n', 1), compute(3))).toEqual(card(3));
    expect(await cache.answer(key('n', 0, '["x"]'), compute(4))).toEqual(card(4));
    expect(await cache.answer(key('n', 0, '[]', 'table-b'), compute(5))).toEqual(card(5));
    expect(await cache.answer(key('n', 0, '[]', null), compute(6))).toEqual(card(6));
    expect(computed).toBe(5);
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 5, entries: 5 });
  });

  it('keeps an answer as the JSON it is sent as: a hit is a parsed copy, with that JSON remembered', async () => {
    const cache = new AnswerCache();
    const computed = { value: 3, unfiltered_value: Number.NaN };
    expect(await cache.answer(key('n'), async () => computed)).toBe(computed);
    computed.value = 4;
    const hit = await cache.answer(key('n'), async () => card(5));
    // What the client got: the value before the change, NaN as JSON writes it.
    expect(hit).toEqual({ value: 3, unfiltered_value: null });
    expect(hit).not.toBe(computed);
    expect(answerJson(hit)).toBe('{"value":3,"unfiltered_value":null}');
  });

  it('shares one computation between concurrent requests, and keeps no failure', async () => {
    const cache = new AnswerCache();
    let release: (data: ComponentData) => void = () => {};
    const slow = new Promise<ComponentData>((resolve) => {
      release = resolve;
    });
    let computed = 0;
    const first = cache.answer(key('n'), () => {
      computed++;
      return slow;
    });
    const second = cache.answer(key('n'), async () => {
      computed++;
      return card(9);
    });
    release(card(7));
    expect(await Promise.all([first, second])).toEqual([card(7), card(7)]);
    expect(computed).toBe(1);

    await expect(cache.answer(key('broken'), () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await cache.answer(key('broken'), async () => card(1))).toEqual(card(1));
  });

  it('computes anew for a request that joined a computation its own request stopped', async () => {
    const cache = new AnswerCache();
    const bounds = () => workBounds().bounds;
    const first = bounds();
    let fail: (error: unknown) => void = () => {};
    const stoppedWork = new Promise<ComponentData>((_, reject) => {
      fail = reject;
    });
    const owner = withinBounds(first, () => cache.answer(key('n'), () => stoppedWork));
    // Another request asks for the same answer while the first computes it, then the first stops.
    const joiner = withinBounds(bounds(), () => cache.answer(key('n'), async () => card(7)));
    const tooLarge = new DomainError('request_too_large', 'the answer grew beyond 0 MiB');
    first.stop(tooLarge);
    fail(tooLarge);
    await expect(owner).rejects.toBe(tooLarge);
    expect(await joiner).toEqual(card(7));
    // A failure of a computation whose request was not stopped is every joiner's.
    let failOwn: (error: unknown) => void = () => {};
    const failing = withinBounds(bounds(), () =>
      cache.answer(key('m'), () => new Promise<ComponentData>((_, reject) => (failOwn = reject))),
    );
    const sharing = withinBounds(bounds(), () => cache.answer(key('m'), async () => card(8)));
    const broken = new Error('the table could not be read');
    failOwn(broken);
    await expect(failing).rejects.toBe(broken);
    await expect(sharing).rejects.toBe(broken);
  });

  it('keeps at most its entries and bytes, dropping the least recently used first', async () => {
    const cache = new AnswerCache({ entries: 2, bytes: 10_000 });
    await cache.answer(key('a'), async () => card(1));
    await cache.answer(key('b'), async () => card(2));
    await cache.answer(key('a'), async () => card(0)); // a is now the most recent
    await cache.answer(key('c'), async () => card(3));
    expect(cache.stats().entries).toBe(2);
    expect(await cache.answer(key('a'), async () => card(-1))).toEqual(card(1));
    expect(await cache.answer(key('b'), async () => card(-2))).toEqual(card(-2));

    const small = new AnswerCache({ entries: 100, bytes: 2_000 });
    const big = (n: number): ComponentData => ({ options: [{ value: 'x'.repeat(300), count: n }], truncated: false });
    for (let n = 0; n < 10; n++) await small.answer(key(`big${n}`), async () => big(n));
    expect(small.stats().bytes).toBeLessThanOrEqual(2_000);
    expect(small.stats().entries).toBeLessThan(10);
    // An answer larger than a quarter of the budget is served but not kept.
    const huge: ComponentData = { options: [{ value: 'y'.repeat(1_000), count: 1 }], truncated: false };
    expect(await small.answer(key('huge'), async () => huge)).toEqual(huge);
    expect(await small.answer(key('huge'), async () => big(1))).toEqual(big(1));
    expect(await small.answer(key('big9'), async () => big(99))).toEqual(big(9));
  });
});
