import type { Capabilities, Feature } from '@service/common';
import type { Config } from '../config/config.js';

/**
 * What this instance offers, for clients to read before signing in. Derived from configuration
 * only, so every replica answers the same, and it never includes a secret.
 */
export function describeCapabilities(config: Config): Capabilities {
  const features: Feature[] = [];
  if (config.jobs.enabled) features.push('jobs');
  if (config.jobs.asyncUpsert) features.push('deltatables.async_upsert');
  if (config.ingestion.browserTrigger) features.push('ingestion.browser_trigger');
  const { auth } = config;
  const temporaryUsers = auth.mode === 'public' || auth.mode === 'demo';
  return {
    version: config.version,
    app_name: config.appName,
    auth_mode: auth.mode,
    features,
    auth: {
      registration: auth.mode === 'auth' && !auth.registrationDisabled,
      password_login: auth.mode !== 'single_user' && !auth.passwordLoginDisabled,
      oauth: auth.oauth !== null,
      temporary_users: temporaryUsers,
      access_code_required: temporaryUsers && auth.publicAccessCode !== null,
      temporary_user_expiry_hours: temporaryUsers ? auth.temporaryUserExpiryHours : null,
    },
  };
}
