import { Badge, Table } from '@mantine/core';
import { type DashboardComponent, type EmbedToken, embedTokenListSchema } from '@service/common';
import type { ReactNode } from 'react';
import { useApi } from '../../auth/session.js';
import { RevocableTable } from '../../components/RevocableTable.js';
import { formatDate } from '../../format/date.js';
import { componentLabel } from '../chips.js';
import { embedScopeLabel, embedTokenState } from './embed-snippet.js';

export const embedTokensKey = (dashboardId: string) => ['embed-tokens', dashboardId];

const STATE_COLOR = { active: 'green', expired: 'gray', revoked: 'red' } as const;

/** The dashboard's embed tokens, newest first (never their secrets), each revocable while it works. */
export function EmbedTokenList({
  dashboardId,
  components,
}: {
  dashboardId: string;
  components: readonly DashboardComponent[];
}) {
  const api = useApi();
  const titles = componentTitles(components);
  const now = new Date();
  return (
    <RevocableTable<EmbedToken>
      queryKey={embedTokensKey(dashboardId)}
      load={(signal) =>
        api.request(`/dashboards/${dashboardId}/embed_tokens`, embedTokenListSchema, { query: { limit: 200 }, signal })
      }
      revoke={(tokenId) => api.requestVoid(`/dashboards/${dashboardId}/embed_tokens/${tokenId}`, { method: 'DELETE' })}
      names={{ list: 'the embed tokens', empty: 'No embed tokens yet.', table: 'Embed tokens' }}
      headers={['Scope', 'Created', 'Expires', 'Last used', 'State']}
      minWidth={560}
      renderRow={(token, revokeButton) => {
        const scope = embedScopeLabel(token, titles);
        return (
          <TokenRow
            key={token.embed_token_id}
            token={token}
            scope={scope}
            state={embedTokenState(token, now)}
            revokeButton={revokeButton(
              token.embed_token_id,
              `Revoke the token for ${scope} created ${formatDate(token.created_at)}`,
            )}
          />
        );
      }}
    />
  );
}

/** Each component's title (or what it shows, untitled), to name a token's scope. */
function componentTitles(components: readonly DashboardComponent[]): Map<string, string> {
  return new Map(
    components.map((component) => [
      component.component_id,
      component.title || (component.type === 'text' ? 'Text' : componentLabel(component)),
    ]),
  );
}

/** A token's line: what it opens, its dates and state, and a button to revoke it while it works. */
function TokenRow({
  token,
  scope,
  state,
  revokeButton,
}: {
  token: EmbedToken;
  scope: string;
  state: ReturnType<typeof embedTokenState>;
  revokeButton: ReactNode;
}) {
  return (
    <Table.Tr data-embed-token-id={token.embed_token_id}>
      <Table.Td>{scope}</Table.Td>
      <Table.Td>{formatDate(token.created_at)}</Table.Td>
      <Table.Td>{formatDate(token.expires_at)}</Table.Td>
      <Table.Td>{token.last_used_at === null ? 'never' : formatDate(token.last_used_at)}</Table.Td>
      <Table.Td>
        <Badge variant="light" color={STATE_COLOR[state]}>
          {state}
        </Badge>
      </Table.Td>
      <Table.Td>{state !== 'revoked' && revokeButton}</Table.Td>
    </Table.Tr>
  );
}
