// @vitest-environment jsdom
import { getConfig } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

describe('waits in the jsdom tests', () => {
  it('wait for their condition longer than Testing Library’s 1 s (test/support/dom-waits.ts)', () => {
    expect(getConfig().asyncUtilTimeout).toBe(20_000);
  });
});
