import { AccessTokens } from './auth/access-tokens.js';
import { SessionService } from './auth/session-service.js';
import { loadSigningKey } from './auth/signing-keys.js';
import type { Config } from './config/config.js';
import { type Database, openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { API_PREFIX } from './http/prefix.js';
import { UsersService } from './users/service.js';

/** Everything a request handler may need, built once per process. */
export interface AppContext {
  config: Config;
  database: Database;
  tokens: AccessTokens;
  sessions: SessionService;
  users: UsersService;
}

/**
 * Opens the database, brings its schema up to date, loads the signing key and creates the
 * bootstrap admin. Each step is safe to run on several replicas at once.
 */
export async function createContext(config: Config): Promise<AppContext> {
  const database = openDatabase(config.database);
  try {
    await migrateToLatest(database);
    const key = await loadSigningKey(database, config.auth.jwtPrivateKey);
    const tokens = new AccessTokens(
      key,
      config.publicUrl,
      `${config.publicUrl}${API_PREFIX}`,
      config.auth.accessTokenTtlSeconds,
    );
    const users = new UsersService(database);
    if (config.auth.bootstrapAdmin) await users.ensureBootstrapAdmin(config.auth.bootstrapAdmin);
    return {
      config,
      database,
      tokens,
      sessions: new SessionService(database, tokens, config.auth.refreshTokenTtlSeconds),
      users,
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
