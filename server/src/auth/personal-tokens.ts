import {
  ACCESS_TOKEN_PREFIX,
  type AccessToken,
  type AccessTokenList,
  type CreateAccessTokenRequest,
  type CreatedAccessToken,
} from '@service/common';
import { v7 as uuidv7 } from 'uuid';
import type { AuditLog } from '../audit/service.js';
import type { Database } from '../db/database.js';
import { paginate } from '../db/paginate.js';
import type { AccessTokensTable } from '../db/tables.js';
import { isoAfterSeconds, isoNow } from '../db/time.js';
import { DomainError, type FieldProblem, notFound } from '../errors.js';
import type { Actor, UserActor } from '../policy/actor.js';
import { authorize } from '../policy/policy.js';
import { type AccessTokenWithUser, accessTokenRows } from '../tables/access-tokens.js';
import { hashSecret, randomSecret, secretsMatch } from './secrets.js';

/** A use is written to the token's row at most this often (a burst of requests writes once). */
const USE_RECORD_INTERVAL_MS = 60_000;

const invalid = () => new DomainError('token_invalid', 'the access token is invalid, expired or revoked');

/** Whether a presented bearer token is a personal access token (and not a JWT). */
export function isPersonalToken(presented: string): boolean {
  return presented.startsWith(ACCESS_TOKEN_PREFIX);
}

/**
 * Personal access tokens (docs/auth.md "Personal access tokens"): long-lived bearer tokens for
 * pipelines and the CLI, made and revoked by their user with a session. Only the secret's SHA-256
 * is stored. A token never does more than its user: every request runs as the user (as they are
 * now), narrowed by the token's scope and projects in the policy (`TokenGrant`).
 */
export class PersonalTokens {
  constructor(
    private readonly database: Pick<Database, 'db'>,
    private readonly audit: Pick<AuditLog, 'record'>,
    /** Throws 404 unless the actor may read the project (the projects service's `access`). */
    private readonly readProject: (actor: UserActor, projectId: string) => Promise<unknown>,
  ) {}

  async create(actor: Actor, request: CreateAccessTokenRequest, clientAddress: string): Promise<CreatedAccessToken> {
    authorize(actor, 'tokens.manage');
    const projectIds = request.project_ids === undefined ? null : [...new Set(request.project_ids)];
    if (projectIds !== null) await this.checkProjects(actor, projectIds);
    const token = `${ACCESS_TOKEN_PREFIX}${randomSecret()}`;
    const row: AccessTokensTable = {
      id: uuidv7(),
      user_id: actor.userId,
      name: request.name,
      token_hash: hashSecret(token),
      scope: request.scope,
      project_ids: projectIds === null ? null : JSON.stringify(projectIds),
      created_at: isoNow(),
      expires_at: isoAfterSeconds(request.expires_in_days * 86_400),
      last_used_at: null,
      last_used_from: null,
    };
    await accessTokenRows.insert(this.database.db, row);
    await this.audit.record({
      type: 'access_token.created',
      actorUserId: actor.userId,
      subjectUserId: actor.userId,
      clientAddress,
      details: { token_id: row.id, name: row.name, scope: row.scope, project_ids: projectIds },
    });
    const { id, name, scope, expires_at } = row;
    return { token_id: id, token, name, scope, project_ids: projectIds, expires_at };
  }

  /** A token may name only projects its user can read: any other is a 400 naming the entry. */
  private async checkProjects(actor: UserActor, projectIds: readonly string[]): Promise<void> {
    const problems: FieldProblem[] = [];
    for (const [index, projectId] of projectIds.entries()) {
      try {
        await this.readProject(actor, projectId);
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'not_found') throw error;
        problems.push({ path: `body.project_ids[${index}]`, message: 'no such project' });
      }
    }
    if (problems.length > 0) throw new DomainError('validation_failed', 'the token names unknown projects', problems);
  }

  /** The caller's tokens, newest first; never a secret. */
  async list(actor: Actor, page: { limit: number; skip: number }): Promise<AccessTokenList> {
    authorize(actor, 'tokens.manage');
    return paginate(
      accessTokenRows.ofUserFiltered(this.database.db, actor.userId),
      (rows) => rows.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
      page,
      presentToken,
    );
  }

  /** Revokes (deletes) one of the caller's tokens; anyone else's is absent (404). */
  async revoke(actor: Actor, tokenId: string, clientAddress: string): Promise<void> {
    authorize(actor, 'tokens.manage');
    if (!(await accessTokenRows.deleteOfUser(this.database.db, tokenId, actor.userId))) throw notFound('access token');
    await this.audit.record({
      type: 'access_token.revoked',
      actorUserId: actor.userId,
      subjectUserId: actor.userId,
      clientAddress,
      details: { token_id: tokenId },
    });
  }

  /**
   * The actor a presented token stands for, recording the use (at most once a minute per token).
   * Unknown, expired or revoked tokens, and those of a disabled or expired account, are 401
   * `token_invalid`; a deleted account's tokens were deleted with it. The row is found by the
   * secret's hash, and the hashes are compared again in constant time.
   */
  async authenticate(presented: string, clientAddress: string): Promise<UserActor> {
    const hash = hashSecret(presented);
    const row = await accessTokenRows.findByHash(this.database.db, hash);
    const nowMs = Date.now();
    const now = new Date(nowMs).toISOString();
    if (!row || !secretsMatch(hash, row.token_hash) || !usable(row, now)) throw invalid();
    if (row.last_used_at === null || Date.parse(row.last_used_at) <= nowMs - USE_RECORD_INTERVAL_MS) {
      const notBefore = new Date(nowMs - USE_RECORD_INTERVAL_MS).toISOString();
      await accessTokenRows.markUsed(this.database.db, row.id, now, clientAddress, notBefore);
    }
    return {
      kind: 'user',
      userId: row.user_id,
      role: row.user_role,
      isTemporary: row.user_is_temporary === 1,
      sessionId: null,
      token: { tokenId: row.id, scope: row.scope, projectIds: projectIdsOf(row) },
    };
  }
}

function usable(row: AccessTokenWithUser, now: string): boolean {
  return row.expires_at > now && row.user_disabled === 0 && (row.user_expires_at === null || row.user_expires_at > now);
}

function projectIdsOf(row: AccessTokensTable): string[] | null {
  return row.project_ids === null ? null : (JSON.parse(row.project_ids) as string[]);
}

function presentToken(row: AccessTokensTable): AccessToken {
  return {
    token_id: row.id,
    name: row.name,
    scope: row.scope,
    project_ids: projectIdsOf(row),
    created_at: row.created_at,
    expires_at: row.expires_at,
    last_used_at: row.last_used_at,
    last_used_from: row.last_used_from,
  };
}
