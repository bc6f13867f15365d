import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';

/** SERVICE_EXPORT_FRAME_ANCESTORS: CSP sources only, so a value can never add a directive of its own. */
describe('SERVICE_EXPORT_FRAME_ANCESTORS', () => {
  const load = (value?: string) =>
    loadConfig(value === undefined ? {} : { SERVICE_EXPORT_FRAME_ANCESTORS: value }, '/srv').export.frameAncestors;

  it('lets anyone frame exported pages by default', () => {
    expect(load()).toEqual(['*']);
  });

  it('takes sources separated by spaces or commas', () => {
    expect(load("'self' https://example.org, https://*.example.org:8443 https:")).toEqual([
      "'self'",
      'https://example.org',
      'https://*.example.org:8443',
      'https:',
    ]);
    expect(load("'none'")).toEqual(["'none'"]);
  });

  it('refuses anything that is not a source, and none beside others', () => {
    for (const value of [
      "https://a.example; script-src 'unsafe-inline'",
      "'unsafe-inline'",
      "'none' https://example.org",
      'https://exa mple.org"',
      ',',
    ]) {
      expect(() => load(value), value).toThrow(/SERVICE_EXPORT_FRAME_ANCESTORS/);
    }
  });
});
