import { type AuthMode, type Capabilities, sameSitePath } from '@service/common';
import { API_BASE } from '../api/client.js';

/** What the sign-in UI offers, decided from `GET /utils/capabilities` alone. */
export interface SignInPlan {
  mode: AuthMode;
  /** Nothing is visible without signing in (auth mode). */
  signInRequired: boolean;
  /** Anonymous visitors may browse public content (public and demo mode). */
  anonymousBrowsing: boolean;
  /** There is any sign-in UI at all (everything but single-user mode). */
  signInAvailable: boolean;
  passwordForm: boolean;
  oauth: boolean;
  registration: boolean;
  /** Offered in public and demo mode. */
  temporaryUser: { accessCodeRequired: boolean; expiryHours: number | null } | null;
  /** Sidebar badge naming a non-default mode. */
  badge: string | null;
  /** The admin user-management entry (auth mode only). */
  userManagement: boolean;
}

const BADGES: Record<AuthMode, string | null> = {
  auth: null,
  single_user: 'Single User Mode',
  public: 'Public Mode',
  demo: 'Demo Mode',
};

export function signInPlan(capabilities: Capabilities): SignInPlan {
  const mode = capabilities.auth_mode;
  const { auth } = capabilities;
  const singleUser = mode === 'single_user';
  const open = mode === 'public' || mode === 'demo';
  return {
    mode,
    signInRequired: mode === 'auth',
    anonymousBrowsing: open,
    signInAvailable: !singleUser,
    passwordForm: !singleUser && auth.password_login,
    oauth: !singleUser && auth.oauth,
    registration: mode === 'auth' && auth.registration,
    temporaryUser:
      open && auth.temporary_users
        ? { accessCodeRequired: auth.access_code_required, expiryHours: auth.temporary_user_expiry_hours }
        : null,
    badge: BADGES[mode],
    userManagement: mode === 'auth',
  };
}

/**
 * A path on this site to go to after sign-in; anything that could leave the site (`//host`,
 * `/\host`, `https://…`) falls back to `fallback`.
 */
export function safeNextPath(next: string | null | undefined, fallback = '/home'): string {
  if (next === null || next === undefined || next === '') return fallback;
  return sameSitePath(next) ?? fallback;
}

export function oauthLoginUrl(next: string): string {
  return `${API_BASE}/auth/oauth/login?next=${encodeURIComponent(safeNextPath(next))}`;
}

/** Reads `ticket` and `next` from a magic-link fragment (`#ticket=…&next=…`). */
export function parseMagicFragment(hash: string): { ticket: string | null; next: string } {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const ticket = params.get('ticket');
  return { ticket: ticket === null || ticket === '' ? null : ticket, next: safeNextPath(params.get('next')) };
}

const OAUTH_ERRORS: Record<string, string> = {
  oauth_state_invalid: 'The sign-in attempt expired or was already used. Please start again.',
  oauth_failed: 'The identity provider sign-in could not be completed. Please try again.',
  email_not_verified: 'Your identity provider has not verified your email address, so it cannot be used here.',
  registration_disabled: 'There is no account for this email address, and new accounts cannot be created here.',
  account_disabled: 'This account has been disabled. Contact an administrator.',
  idp_error: 'The identity provider refused the sign-in.',
  idp_unavailable: 'The identity provider cannot be reached right now. Please try again later.',
};

/** A readable message for `/auth/sign-in?error=<code>`. */
export function signInErrorMessage(code: string): string {
  return OAUTH_ERRORS[code] ?? `Sign-in failed (${code}). Please try again.`;
}

/** "23 h 59 min left", "12 min left", or "expired". */
export function formatRemaining(expiresAt: string, now: number = Date.now()): string {
  const ms = Date.parse(expiresAt) - now;
  if (!Number.isFinite(ms) || ms <= 0) return 'expired';
  const minutes = Math.max(1, Math.round(ms / 60_000));
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return `${rest} min left`;
  return rest === 0 ? `${hours} h left` : `${hours} h ${rest} min left`;
}

export function formatHours(hours: number): string {
  return hours === 1 ? '1 hour' : `${Number.isInteger(hours) ? hours : hours.toFixed(1)} hours`;
}
