import {
  Alert,
  Button,
  Checkbox,
  CopyButton,
  Group,
  Modal,
  NativeSelect,
  SegmentedControl,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import {
  type AsOf,
  type CreatedEmbedToken,
  type CreateEmbedTokenRequestInput,
  createdEmbedTokenSchema,
  type DashboardComponent,
  type DashboardFilter,
  type ExportTheme,
} from '@service/common';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../../api/client.js';
import { useApi } from '../../auth/session.js';
import { componentLabel } from '../chips.js';
import { EmbedTokenList, embedTokensKey } from './EmbedTokenList.js';
import { DEFAULT_EMBED_HOURS, EMBED_EXPIRIES, embedUrl, iframeSnippet } from './embed-snippet.js';

export interface EmbedDialogProps {
  dashboardId: string;
  component: DashboardComponent;
  components: readonly DashboardComponent[];
  /** The filters and version the dashboard shows, which the token may pin. */
  filters: readonly DashboardFilter[];
  asOf: AsOf | null;
  /** What the reader made of the component (a table's view, a track's contig): the addresses carry it. */
  shown?: Readonly<Record<string, string>>;
  onClose: () => void;
}

/** A read-only field with its Copy button. */
function Copyable({ label, value, multiline = false }: { label: string; value: string; multiline?: boolean }) {
  const field = multiline ? (
    <Textarea label={label} value={value} readOnly autosize minRows={2} style={{ flex: 1 }} />
  ) : (
    <TextInput label={label} value={value} readOnly style={{ flex: 1 }} />
  );
  return (
    <Group align="flex-end" wrap="nowrap">
      {field}
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Button
            variant="light"
            onClick={copy}
            aria-label={`${copied ? 'Copied' : 'Copy'} the ${label.toLowerCase()}`}
            miw={90}
          >
            {copied ? 'Copied' : 'Copy'}
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}

/** Creates an embed token of the dashboard from the request the dialog's choices make; the list then reloads. */
function useCreateEmbedToken(dashboardId: string, request: () => CreateEmbedTokenRequestInput) {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: () =>
      api.request(`/dashboards/${dashboardId}/embed_tokens`, createdEmbedTokenSchema, {
        method: 'POST',
        json: request(),
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: embedTokensKey(dashboardId) }),
  });
}

/**
 * Embedding one component in another site: create an expiring, read-only embed token (for this
 * component or the whole dashboard, optionally pinning the filters and version shown), copy its
 * `<iframe>` snippet and address (shown once: the server keeps only a hash), and list and revoke
 * the dashboard's tokens.
 */
export function EmbedDialog({
  dashboardId,
  component,
  components,
  filters,
  asOf,
  shown = {},
  onClose,
}: EmbedDialogProps) {
  const label = component.title || (component.type === 'text' ? 'Text' : componentLabel(component));
  const [scope, setScope] = useState<'component' | 'dashboard'>('component');
  const [hours, setHours] = useState(String(DEFAULT_EMBED_HOURS));
  const [pinFilters, setPinFilters] = useState(false);
  const [pinVersion, setPinVersion] = useState(false);
  const [theme, setTheme] = useState<ExportTheme>('light');
  const create = useCreateEmbedToken(dashboardId, () => ({
    expires_in_hours: Number(hours),
    ...(scope === 'component' ? { component_id: component.component_id } : {}),
    ...(pinFilters && filters.length > 0 ? { filters: [...filters] } : {}),
    ...(pinVersion && asOf !== null ? { as_of: asOf } : {}),
  }));
  const created = create.data;
  return (
    <Modal opened onClose={onClose} title={`Embed ${label}`} size="xl">
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          An embed token lets any site show this component read-only, without signing in, until it expires or is
          revoked.
        </Text>
        <SegmentedControl
          aria-label="What the token opens"
          value={scope}
          onChange={(value) => setScope(value === 'dashboard' ? 'dashboard' : 'component')}
          data={[
            { value: 'component', label: 'This component' },
            { value: 'dashboard', label: 'Every component' },
          ]}
        />
        <ExpiryAndTheme hours={hours} onHours={setHours} theme={theme} onTheme={setTheme} />
        {filters.length > 0 && (
          <Checkbox
            label={`Pin the current filters (${filters.length}): the embedded view always applies them`}
            checked={pinFilters}
            onChange={(event) => setPinFilters(event.currentTarget.checked)}
          />
        )}
        {asOf !== null && (
          <Checkbox
            label="Pin the version shown: the embedded view never changes"
            checked={pinVersion}
            onChange={(event) => setPinVersion(event.currentTarget.checked)}
          />
        )}
        <Group>
          <Button onClick={() => create.mutate()} loading={create.isPending}>
            Create embed token
          </Button>
        </Group>
        {create.isError && (
          <Alert color="red" role="alert" title="Could not create the token">
            {errorMessage(create.error)}
          </Alert>
        )}
        {created && (
          <NewToken created={created} componentId={component.component_id} theme={theme} label={label} shown={shown} />
        )}
        <Title order={3} size="h5">
          Embed tokens of this dashboard
        </Title>
        <EmbedTokenList dashboardId={dashboardId} components={components} />
      </Stack>
    </Modal>
  );
}

/** When the token expires, and the theme of the embedded page. */
function ExpiryAndTheme({
  hours,
  onHours,
  theme,
  onTheme,
}: {
  hours: string;
  onHours: (hours: string) => void;
  theme: ExportTheme;
  onTheme: (theme: ExportTheme) => void;
}) {
  return (
    <Group grow align="flex-start">
      <NativeSelect
        label="Expires in"
        value={hours}
        onChange={(event) => onHours(event.currentTarget.value)}
        data={EMBED_EXPIRIES.map((choice) => ({ value: String(choice.hours), label: choice.label }))}
      />
      <NativeSelect
        label="Theme"
        value={theme}
        onChange={(event) => onTheme(event.currentTarget.value === 'dark' ? 'dark' : 'light')}
        data={[
          { value: 'light', label: 'Light' },
          { value: 'dark', label: 'Dark' },
        ]}
      />
    </Group>
  );
}

/** The token just made, shown once: its snippet, its page's address and its spec's, each to copy. */
function NewToken({
  created,
  componentId,
  theme,
  label,
  shown,
}: {
  created: CreatedEmbedToken;
  componentId: string;
  theme: ExportTheme;
  label: string;
  shown: Readonly<Record<string, string>>;
}) {
  const pageUrl = embedUrl(created.html_url, componentId, theme, shown);
  return (
    <Stack gap="sm" aria-label="New embed token" role="group">
      <Alert color="yellow" title="Copy it now">
        This address carries the token and is shown only once. It expires {created.expires_at.slice(0, 10)}.
      </Alert>
      <Copyable label="Embed snippet" value={iframeSnippet({ src: pageUrl, title: label })} multiline />
      <Copyable label="Page URL" value={pageUrl} />
      <Copyable label="Spec URL" value={embedUrl(created.url, componentId, 'light', shown)} />
    </Stack>
  );
}
