import type { Config } from './config.js';

/** The effective settings as `service config check` shows them, secrets replaced. */
export function describeConfig(config: Config): Record<string, unknown> {
  const redacted = (value: string | null) => (value === null ? null : '<redacted>');
  return {
    ...config,
    database:
      config.database.kind === 'postgres' ? { kind: 'postgres', url: redactUrl(config.database.url) } : config.database,
    s3: { ...config.s3, secretAccessKey: redacted(config.s3.secretAccessKey) },
    auth: {
      ...config.auth,
      oauth: config.auth.oauth && { ...config.auth.oauth, clientSecret: '<redacted>' },
      publicAccessCode: redacted(config.auth.publicAccessCode),
      provisioningKey: redacted(config.auth.provisioningKey),
      internalKey: redacted(config.auth.internalKey),
      jwtPrivateKey: redacted(config.auth.jwtPrivateKey),
      bootstrapAdmin: config.auth.bootstrapAdmin && {
        email: config.auth.bootstrapAdmin.email,
        password: redacted(config.auth.bootstrapAdmin.password),
      },
    },
  };
}

function redactUrl(value: string): string {
  const url = new URL(value);
  if (url.password !== '') url.password = '<redacted>';
  return url.toString();
}
