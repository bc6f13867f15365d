import { describe, expect, it } from 'vitest';
import { requestIdGenerator } from '../../src/http/request-ids.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('are UUID-shaped and distinct within a process and between processes', () => {
    const first = requestIdGenerator();
    const second = requestIdGenerator();
    const ids = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      for (const next of [first, second]) {
        const id = next();
        expect(id).toMatch(UUID_V4);
        ids.add(id);
      }
    }
    expect(ids.size).toBe(20_000);
  });
});
