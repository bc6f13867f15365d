import type { Fail } from './connections.js';
import { type Env, SECRET_SETTINGS } from './settings.js';

/*
 * Secrets copied from an example file or a tutorial are known to everyone who read it. A process
 * refuses to start with one (and `service config check` says so), so a deployment cannot go live
 * with the admin password or internal key of the documentation.
 */

/** Phrases that mark a value as "put your own here", compared without case, spaces, dashes or underscores. */
const PLACEHOLDER_PHRASES = ['changethis', 'changeme', 'replaceme', 'replacethis', 'yoursecret', 'yourpassword'];

/** Values this project's own deploy files and docs once shipped as defaults. */
const PUBLISHED_DEFAULTS = new Set(['service-db-password', 'service-s3-secret-key', 'minioadmin']);

/** Whether a secret is a placeholder: a "change me" phrase, an ellipsis, or a published default. */
export function isPlaceholderSecret(value: string): boolean {
  const squashed = value.toLowerCase().replace(/[\s_-]+/g, '');
  if (PLACEHOLDER_PHRASES.some((phrase) => squashed.includes(phrase))) return true;
  if (/^(\.{3}|…)+$/.test(value.trim())) return true;
  return PUBLISHED_DEFAULTS.has(value.trim().toLowerCase());
}

/** The password inside a database URL, if it has one. */
function databasePassword(url: string | undefined): string | null {
  if (url === undefined) return null;
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password === '' ? null : password;
  } catch {
    return null; // a malformed URL is reported by the database setting's own check
  }
}

/** Reports every secret setting (and the database URL's password) that holds a placeholder. */
export function checkPlaceholderSecrets(env: Env, fail: Fail): void {
  const reason = 'holds a placeholder value from an example; set a secret of your own';
  for (const variable of SECRET_SETTINGS) {
    const value = env[variable as keyof Env];
    if (typeof value === 'string' && isPlaceholderSecret(value)) fail(variable, reason);
  }
  const password = databasePassword(env.SERVICE_DATABASE_URL);
  if (password !== null && isPlaceholderSecret(password)) fail('SERVICE_DATABASE_URL', `password ${reason}`);
}
