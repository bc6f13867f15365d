import { describe, expect, it } from 'vitest';
import {
  formatRemaining,
  oauthLoginUrl,
  parseMagicFragment,
  safeNextPath,
  signInErrorMessage,
  signInPlan,
} from '../src/auth/plan.js';
import { capabilitiesFor } from './support/fixtures.js';

describe('sign-in decisions from capabilities', () => {
  it('auth mode: sign-in required, password form, Register while registration is open, user management', () => {
    const plan = signInPlan(capabilitiesFor('auth'));
    expect(plan).toMatchObject({
      signInRequired: true,
      anonymousBrowsing: false,
      passwordForm: true,
      registration: true,
      oauth: false,
      temporaryUser: null,
      badge: null,
      userManagement: true,
    });
    expect(signInPlan(capabilitiesFor('auth', { registration: false })).registration).toBe(false);
  });

  it('auth mode with identity-provider sign-in only hides the password form', () => {
    const plan = signInPlan(capabilitiesFor('auth', { password_login: false, oauth: true }));
    expect(plan.passwordForm).toBe(false);
    expect(plan.oauth).toBe(true);
  });

  it('single-user mode: no sign-in of any kind, a badge, no user management', () => {
    const plan = signInPlan(capabilitiesFor('single_user', { oauth: true }));
    expect(plan).toMatchObject({
      signInRequired: false,
      signInAvailable: false,
      passwordForm: false,
      oauth: false,
      registration: false,
      temporaryUser: null,
      badge: 'Single User Mode',
      userManagement: false,
    });
  });

  it('public and demo mode: anonymous browsing, temporary users with the lifetime and the access code', () => {
    const open = signInPlan(capabilitiesFor('public', { access_code_required: true, oauth: true }));
    expect(open).toMatchObject({
      signInRequired: false,
      anonymousBrowsing: true,
      registration: false,
      oauth: true,
      temporaryUser: { accessCodeRequired: true, expiryHours: 24 },
      badge: 'Public Mode',
      userManagement: false,
    });
    const demo = signInPlan(capabilitiesFor('demo'));
    expect(demo.badge).toBe('Demo Mode');
    expect(demo.temporaryUser).toEqual({ accessCodeRequired: false, expiryHours: 24 });
    // A server that says registration is on outside auth mode is not believed.
    expect(signInPlan(capabilitiesFor('public', { registration: true })).registration).toBe(false);
  });
});

describe('sign-in helpers', () => {
  it('keeps `next` on this site', () => {
    expect(safeNextPath('/projects/42?x=1')).toBe('/projects/42?x=1');
    expect(safeNextPath('/projects/../dashboards/3')).toBe('/dashboards/3');
    for (const bad of [
      '//evil.example',
      '/\\evil.example',
      '/..//evil.example',
      '/.%2e//evil.example',
      'https://evil.example',
      'projects',
      '',
      null,
    ]) {
      expect(safeNextPath(bad)).toBe('/home');
    }
    expect(oauthLoginUrl('/projects/1')).toBe('/service/api/v1/auth/oauth/login?next=%2Fprojects%2F1');
    expect(oauthLoginUrl('//evil')).toBe('/service/api/v1/auth/oauth/login?next=%2Fhome');
  });

  it('reads the magic-link fragment', () => {
    expect(parseMagicFragment('#ticket=abc_-1&next=%2Fprojects%2F7')).toEqual({
      ticket: 'abc_-1',
      next: '/projects/7',
    });
    expect(parseMagicFragment('#ticket=abc&next=https%3A%2F%2Fevil')).toEqual({ ticket: 'abc', next: '/home' });
    expect(parseMagicFragment('')).toEqual({ ticket: null, next: '/home' });
  });

  it('explains OAuth refusals', () => {
    expect(signInErrorMessage('email_not_verified')).toMatch(/not verified your email/);
    expect(signInErrorMessage('something_new')).toContain('something_new');
  });

  it('formats how long a temporary session has left', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(formatRemaining('2026-01-02T00:00:00Z', now)).toBe('24 h left');
    expect(formatRemaining('2026-01-01T23:59:00Z', now)).toBe('23 h 59 min left');
    expect(formatRemaining('2026-01-01T00:12:00Z', now)).toBe('12 min left');
    expect(formatRemaining('2026-01-02T00:00:20Z', now)).toBe('24 h left');
    expect(formatRemaining('2026-01-01T00:00:10Z', now)).toBe('1 min left');
    expect(formatRemaining('2025-12-31T23:00:00Z', now)).toBe('expired');
  });
});
