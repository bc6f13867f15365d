import * as client from 'openid-client';
import type { AuditLog } from '../audit/service.js';
import type { OAuthConfig } from '../config/config.js';
import type { Database } from '../db/database.js';
import type { UserRow } from '../db/tables.js';
import { isoAfterSeconds, isoNow } from '../db/time.js';
import { DomainError } from '../errors.js';
import { oauthStateRows } from '../tables/oauth-states.js';
import type { UsersService } from '../users/service.js';
import type { LoginTickets } from './login-tickets.js';
import { hashSecret, secretsMatch } from './secrets.js';

const STATE_TTL_SECONDS = 10 * 60;
const HANDOFF_TTL_SECONDS = 2 * 60;
const PROVIDER_TIMEOUT_MS = 5_000;

/** Why a sign-in through the identity provider was refused; sent to the web app as `?error=`. */
export type OAuthRefusal =
  | 'idp_unavailable'
  | 'idp_error'
  | 'oauth_state_invalid'
  | 'oauth_failed'
  | 'email_not_verified'
  | 'registration_disabled'
  | 'account_disabled';

export class OAuthRefused extends Error {
  constructor(
    readonly reason: OAuthRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'OAuthRefused';
  }
}

export interface OAuthSettings {
  provider: OAuthConfig;
  redirectUri: string;
  registrationDisabled: boolean;
  bootstrapAdminEmail: string | null;
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * OpenID Connect sign-in: authorization code with PKCE, `state` and `nonce`. The pending request
 * lives in the database (single use, 10 minutes), so the callback may land on any replica. A
 * finished sign-in becomes a one-time ticket that the web app spends like a magic link, so no
 * token ever travels in a URL.
 */
export class OAuthSignIn {
  private configuration: Promise<client.Configuration> | undefined;

  constructor(
    private readonly database: Database,
    private readonly settings: OAuthSettings,
    private readonly users: UsersService,
    private readonly tickets: LoginTickets,
    private readonly audit: AuditLog,
  ) {}

  /** The provider's metadata, fetched once and kept; a failure is retried on the next sign-in. */
  private discover(): Promise<client.Configuration> {
    if (this.configuration === undefined) {
      const { issuer, clientId, clientSecret } = this.settings.provider;
      const insecure = LOOPBACK.has(new URL(issuer).hostname) && issuer.startsWith('http:');
      const timedFetch: client.CustomFetch = (url, options) =>
        fetch(url, { ...options, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
      this.configuration = client
        .discovery(new URL(issuer), clientId, clientSecret, undefined, {
          [client.customFetch]: timedFetch,
          ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
        })
        .catch((error: unknown) => {
          this.configuration = undefined;
          throw new OAuthRefused('idp_unavailable', `the identity provider cannot be reached: ${String(error)}`);
        });
    }
    return this.configuration;
  }

  /**
   * Starts a sign-in: remembers the request and answers the provider URL to send the browser to,
   * and the binding (a hash of the state) the starting browser must present to finish it.
   */
  async begin(nextPath: string): Promise<{ url: string; binding: string }> {
    const configuration = await this.discover();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const codeVerifier = client.randomPKCECodeVerifier();
    // One clock reading, so the state lives exactly STATE_TTL_SECONDS.
    const nowMs = Date.now();
    await oauthStateRows.insert(this.database.db, {
      state_hash: hashSecret(state),
      code_verifier: codeVerifier,
      nonce,
      next_path: nextPath,
      created_at: new Date(nowMs).toISOString(),
      expires_at: isoAfterSeconds(STATE_TTL_SECONDS, nowMs),
      used_at: null,
    });
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.settings.redirectUri,
      scope: 'openid email profile',
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, binding: hashSecret(state) };
  }

  /** Finishes a sign-in from the provider's redirect; answers a one-time ticket and where to go next. */
  async finish(
    callbackUrl: URL,
    clientAddress: string,
    binding: string | undefined,
  ): Promise<{ ticket: string; nextPath: string }> {
    try {
      return await this.complete(callbackUrl, clientAddress, binding);
    } catch (error) {
      if (error instanceof OAuthRefused) {
        await this.audit.record({ type: 'oauth.refused', clientAddress, details: { reason: error.reason } });
      }
      throw error;
    }
  }

  private async complete(callbackUrl: URL, clientAddress: string, binding: string | undefined) {
    const params = callbackUrl.searchParams;
    const providerError = params.get('error');
    const state = params.get('state');
    // Only the browser that started the sign-in may finish it: otherwise an attacker could start
    // one, stop at the provider's redirect and have a victim's browser finish it (signing the victim
    // in as the attacker). A redirect from another browser leaves the state for the right one.
    if (state !== null && (binding === undefined || !secretsMatch(binding, hashSecret(state)))) {
      throw new OAuthRefused('oauth_state_invalid', 'the sign-in was started in another browser');
    }
    const pending = state === null ? undefined : await this.spendState(state);
    if (providerError !== null) {
      throw new OAuthRefused('idp_error', `the identity provider refused the sign-in (${providerError.slice(0, 64)})`);
    }
    if (state === null || pending === undefined) {
      throw new OAuthRefused('oauth_state_invalid', 'the sign-in request is unknown, expired or already used');
    }

    const configuration = await this.discover();
    let claims: client.IDToken | undefined;
    let accessToken: string;
    try {
      const tokens = await client.authorizationCodeGrant(
        configuration,
        new URL(`${this.settings.redirectUri}${callbackUrl.search}`),
        {
          pkceCodeVerifier: pending.code_verifier,
          expectedState: state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        },
      );
      claims = tokens.claims();
      accessToken = tokens.access_token;
    } catch (error) {
      throw new OAuthRefused('oauth_failed', `the sign-in could not be completed: ${String(error)}`);
    }
    if (claims === undefined) throw new OAuthRefused('oauth_failed', 'the provider sent no ID token');

    let email = typeof claims.email === 'string' ? claims.email : undefined;
    let verified = claims.email_verified;
    if (email === undefined) {
      let info: client.UserInfoResponse;
      try {
        // Checks that the answer is about the ID token's subject.
        info = await client.fetchUserInfo(configuration, accessToken, claims.sub);
      } catch (error) {
        // A provider failure or a userinfo answer about someone else, not an unverified email.
        throw new OAuthRefused('oauth_failed', `the provider's userinfo could not be used: ${String(error)}`);
      }
      email = typeof info.email === 'string' ? info.email : undefined;
      verified = info.email_verified;
    }
    if (email === undefined || verified !== true) {
      throw new OAuthRefused('email_not_verified', 'the identity provider did not vouch for an email address');
    }

    const user = await this.accountFor(email);
    const { ticket } = await this.tickets.issue(user, 'oauth', pending.next_path, HANDOFF_TTL_SECONDS);
    await this.audit.record({
      type: 'oauth.succeeded',
      subjectUserId: user.id,
      subjectEmail: user.email,
      clientAddress,
      details: { issuer: this.settings.provider.issuer },
    });
    return { ticket, nextPath: pending.next_path };
  }

  /** Spends the pending request for a state in one conditional update: single use, even across replicas. */
  private async spendState(state: string) {
    return oauthStateRows.spend(this.database.db, hashSecret(state), isoNow());
  }

  /** The account for a verified email: existing, the bootstrap admin, or a new one if registration is open. */
  private async accountFor(email: string): Promise<UserRow> {
    const existing = await this.users.repository.findByEmail(email);
    if (existing) {
      if (existing.disabled === 1 || existing.is_temporary === 1) {
        throw new OAuthRefused('account_disabled', 'this account is disabled');
      }
      return existing;
    }
    const bootstrap = this.settings.bootstrapAdminEmail;
    const isBootstrapAdmin = bootstrap !== null && bootstrap.toLowerCase() === email.toLowerCase();
    if (!isBootstrapAdmin && this.settings.registrationDisabled) {
      throw new OAuthRefused('registration_disabled', 'there is no account for this email and registration is closed');
    }
    try {
      return await this.users.createAccount(
        { email, password: null, role: isBootstrapAdmin ? 'admin' : 'user' },
        { via: 'oauth' },
      );
    } catch (error) {
      if (error instanceof DomainError && error.code === 'email_taken') {
        const raced = await this.users.repository.findByEmail(email);
        if (raced) return raced;
      }
      throw error;
    }
  }
}
