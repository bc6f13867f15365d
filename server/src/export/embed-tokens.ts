import type {
  AsOf,
  CreatedEmbedToken,
  CreateEmbedTokenRequest,
  DashboardComponent,
  DashboardFilter,
  EmbedToken,
  EmbedTokenList,
} from '@service/common';
import { filterValueProblem } from '@service/common';
import { v7 as uuidv7 } from 'uuid';
import type { AuditLog } from '../audit/service.js';
import { hashSecret, randomSecret, secretsMatch } from '../auth/secrets.js';
import type { DashboardDataService } from '../dashboards/data/service.js';
import type { DashboardRecord } from '../dashboards/repository.js';
import { componentsOf, type DashboardsService } from '../dashboards/service.js';
import type { Database } from '../db/database.js';
import { paginate } from '../db/paginate.js';
import type { EmbedTokensTable } from '../db/tables.js';
import { isoAfterSeconds, isoNow } from '../db/time.js';
import { DomainError, type FieldProblem, notFound } from '../errors.js';
import type { Actor, UserActor } from '../policy/actor.js';
import { authorizePublish, canPublish } from '../policy/policy.js';
import { embedTokenRows } from '../tables/embed-tokens.js';
import { UsersRepository } from '../users/repository.js';

/** Embed tokens start with this, so a leaked one is recognizable (and never mistaken for a JWT). */
const TOKEN_PREFIX = 'emb_';

/** What a valid embed token opens: one dashboard (or one component of it), with its fixed view. */
export interface EmbedGrant {
  embedTokenId: string;
  dashboardId: string;
  /** null: every component of the dashboard. */
  componentId: string | null;
  filters: DashboardFilter[];
  asOf: AsOf | null;
  /** The dashboard it opens, as it is now. */
  record: DashboardRecord;
}

const invalid = () => new DomainError('token_invalid', 'the embed token is not valid for this component');

/**
 * Embed tokens (docs/architecture.md "Export"): read-only, expiring, revocable links to a dashboard
 * or one of its components. Only the secret's SHA-256 is stored. Making one is publishing: it needs
 * the right to share the project (policy `authorizePublish`), and a token works only while its
 * creator still has that right. Editors of the dashboard list and revoke them.
 */
export class EmbedTokens {
  private readonly dashboards: Pick<DashboardsService, 'access' | 'load'>;
  private readonly data: Pick<DashboardDataService, 'checkAsOf'>;

  constructor(
    private readonly database: Pick<Database, 'db'>,
    services: {
      dashboards: Pick<DashboardsService, 'access' | 'load'>;
      dashboardData: Pick<DashboardDataService, 'checkAsOf'>;
    },
    private readonly audit: Pick<AuditLog, 'record'>,
    /** `{SERVICE_PUBLIC_URL}{API prefix}`: where the export route lives, for the links. */
    private readonly apiUrl: string,
  ) {
    this.dashboards = services.dashboards;
    this.data = services.dashboardData;
  }

  async create(
    actor: Actor,
    dashboardId: string,
    request: CreateEmbedTokenRequest,
    clientAddress: string | null,
  ): Promise<CreatedEmbedToken> {
    const { record, resource, project } = await this.dashboards.access(actor, dashboardId, 'resource.read');
    authorizePublish(actor, resource, project, 'an embed token');
    checkScope(componentsOf(record), request);
    if (request.as_of !== undefined) await this.data.checkAsOf(record, request.as_of, 'body.as_of');
    const token = `${TOKEN_PREFIX}${randomSecret()}`;
    const id = uuidv7();
    const now = isoNow();
    const expiresAt = isoAfterSeconds(request.expires_in_hours * 3600);
    const userId = actor.kind === 'user' ? actor.userId : null;
    await this.database.db.transaction().execute(async (trx) => {
      await embedTokenRows.insert(trx, {
        id,
        dashboard_id: dashboardId,
        component_id: request.component_id ?? null,
        token_hash: hashSecret(token),
        filters: JSON.stringify(request.filters ?? []),
        as_of: request.as_of === undefined ? null : JSON.stringify(request.as_of),
        created_by: userId,
        created_at: now,
        expires_at: expiresAt,
        last_used_at: null,
        revoked_at: null,
      });
      await this.audit.record(
        {
          type: 'embed_token.created',
          actorUserId: userId,
          clientAddress,
          details: {
            embed_token_id: id,
            dashboard_id: dashboardId,
            component_id: request.component_id ?? null,
            expires_at: expiresAt,
          },
        },
        trx,
      );
    });
    const component = request.component_id === undefined ? '{component_id}' : encodeURIComponent(request.component_id);
    const base = `${this.apiUrl}/export/components/${encodeURIComponent(dashboardId)}/${component}`;
    return {
      embed_token_id: id,
      token,
      url: `${base}?format=spec&token=${token}`,
      html_url: `${base}?format=html&token=${token}`,
      expires_at: expiresAt,
    };
  }

  /** The dashboard's tokens, newest first, revoked and expired ones included; never a secret. */
  async list(actor: Actor, dashboardId: string, page: { limit: number; skip: number }): Promise<EmbedTokenList> {
    await this.dashboards.access(actor, dashboardId, 'resource.edit');
    return paginate(
      embedTokenRows.ofDashboardFiltered(this.database.db, dashboardId),
      (query) => query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
      page,
      present,
    );
  }

  /** Revokes a token at once; revoking it again changes nothing. */
  async revoke(actor: Actor, dashboardId: string, embedTokenId: string, clientAddress: string | null): Promise<void> {
    await this.dashboards.access(actor, dashboardId, 'resource.edit');
    await this.database.db.transaction().execute(async (trx) => {
      const row = await embedTokenRows.findOfDashboard(trx, embedTokenId, dashboardId);
      if (!row) throw notFound('embed token');
      if (row.revoked_at !== null) return;
      await embedTokenRows.revoke(trx, embedTokenId, isoNow());
      await this.audit.record(
        {
          type: 'embed_token.revoked',
          actorUserId: actor.kind === 'user' ? actor.userId : null,
          clientAddress,
          details: { embed_token_id: embedTokenId, dashboard_id: dashboardId },
        },
        trx,
      );
    });
  }

  /**
   * The grant of a presented token for this dashboard and component, recording the use; a token
   * that is unknown, revoked, expired, or for another dashboard or component → 401 `token_invalid`.
   * The row is found by the secret's hash (a timing difference tells nothing of the secret), and
   * the hashes are compared again in constant time.
   */
  async redeem(presented: string, dashboardId: string, componentId: string): Promise<EmbedGrant> {
    if (!presented.startsWith(TOKEN_PREFIX)) throw invalid();
    const hash = hashSecret(presented);
    const row = await embedTokenRows.findByHash(this.database.db, hash);
    const now = isoNow();
    if (
      !row ||
      !secretsMatch(hash, row.token_hash) ||
      row.revoked_at !== null ||
      row.expires_at <= now ||
      row.dashboard_id !== dashboardId ||
      (row.component_id !== null && row.component_id !== componentId)
    ) {
      throw invalid();
    }
    const record = await this.stillPublished(row);
    await embedTokenRows.markUsed(this.database.db, row.id, now);
    const { filters, asOf } = fixedView(row);
    const { id: embedTokenId, component_id } = row;
    return { embedTokenId, dashboardId: row.dashboard_id, componentId: component_id, filters, asOf, record };
  }

  /**
   * The token's dashboard, if its creator may still publish it: an account that is gone, disabled,
   * or no longer shares the project (or edits the dashboard) takes its tokens with it, at once.
   */
  private async stillPublished(row: EmbedTokensTable): Promise<DashboardRecord> {
    const creator = row.created_by === null ? null : await this.creator(row.created_by);
    const access = await this.dashboards.load(row.dashboard_id).catch((error: unknown) => {
      if (error instanceof DomainError && error.code === 'not_found') return null;
      throw error;
    });
    if (creator === null || access === null || !canPublish(creator, access.resource, access.project)) throw invalid();
    return access.record;
  }

  private async creator(userId: string): Promise<UserActor | null> {
    const [user] = await new UsersRepository(this.database.db).accountStates([userId]);
    if (!user || user.disabled === 1) return null;
    return { kind: 'user', userId: user.id, role: user.role, isTemporary: user.is_temporary === 1, sessionId: null };
  }
}

/** The component a token names must exist and be exportable; its fixed filters must fit their components. */
function checkScope(components: readonly DashboardComponent[], request: CreateEmbedTokenRequest): void {
  const problems: FieldProblem[] = [];
  if (request.component_id !== undefined) {
    const component = components.find((candidate) => candidate.component_id === request.component_id);
    if (!component) problems.push({ path: 'body.component_id', message: 'the dashboard has no such component' });
    else if (component.type === 'interactive') {
      problems.push({ path: 'body.component_id', message: 'a filter widget cannot be exported' });
    }
  }
  (request.filters ?? []).forEach((filter, index) => {
    const component = components.find((candidate) => candidate.component_id === filter.component_id);
    // A fixed filter narrows every component, the one it names included (docs/architecture.md "Export").
    const problem = !component
      ? `the dashboard has no component ${filter.component_id}`
      : filterValueProblem(component, filter.value);
    if (problem !== null) problems.push({ path: `body.filters[${index}]`, message: problem });
  });
  if (problems.length > 0)
    throw new DomainError('validation_failed', 'the embed token does not fit the dashboard', problems);
}

/** The filters and version a token fixes, as stored (JSON columns). */
function fixedView(row: EmbedTokensTable): { filters: DashboardFilter[]; asOf: AsOf | null } {
  return {
    filters: JSON.parse(row.filters) as DashboardFilter[],
    asOf: row.as_of === null ? null : (JSON.parse(row.as_of) as AsOf),
  };
}

function present(row: EmbedTokensTable): EmbedToken {
  const { filters, asOf } = fixedView(row);
  return {
    embed_token_id: row.id,
    dashboard_id: row.dashboard_id,
    component_id: row.component_id,
    filters,
    as_of: asOf,
    created_by: row.created_by,
    created_at: row.created_at,
    expires_at: row.expires_at,
    last_used_at: row.last_used_at,
    revoked: row.revoked_at !== null,
    revoked_at: row.revoked_at,
  };
}
