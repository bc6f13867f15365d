import { Alert, Button, Group, Loader, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { type DashboardComponent, dashboardComponentSchema, readsCollection, type TableColumn } from '@service/common';
import { useState } from 'react';
import { errorMessage } from '../../api/client.js';
import { CellBody } from '../ComponentCell.js';
import { CardForm } from './CardForm.js';
import { Choice } from './Choice.js';
import { InteractiveForm, TableForm, TextForm } from './ComponentForms.js';
import { FigureForm } from './FigureForm.js';
import { ImageForm } from './ImageForm.js';
import { MultiqcForm } from './MultiqcForm.js';
import { type CollectionChoice, useCollectionColumns, usePreviewData, useProjectCollections } from './queries.js';
import { SectionForm } from './SectionForm.js';

export const TYPE_LABELS: Record<DashboardComponent['type'], string> = {
  figure: 'Chart',
  card: 'Card',
  interactive: 'Filter',
  table: 'Table',
  text: 'Text',
  multiqc: 'MultiQC plot',
  section: 'Section',
  image: 'Images',
};

const NO_VIEW = { filters: [], asOf: null, viewKey: 'preview', onFilter: () => {} };

/**
 * The project's collections; the component's own stays offered when the list lacks it (a reader
 * of a shared dashboard who may not open its project edits its copy without listing them).
 */
function collectionOptions(list: readonly CollectionChoice[] | undefined, current: string): CollectionChoice[] {
  const options = [...(list ?? [])];
  if (current !== '' && !options.some((option) => option.value === current)) {
    options.push({ value: current, label: 'this component’s collection' });
  }
  return options;
}

/** What is wrong with the component, field by field, per the schema the server checks too. */
function problemsOf(component: DashboardComponent): string[] {
  const parsed = dashboardComponentSchema.safeParse(component);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => {
    const field = issue.path.join('.');
    return field === '' ? issue.message : `${field}: ${issue.message}`;
  });
}

/** The data the component would show, drawn as the dashboard draws it, while it is being built. */
function Preview({ dashboardId, component }: { dashboardId: string; component: DashboardComponent }) {
  const preview = usePreviewData(dashboardId, readsCollection(component) ? [component] : []);
  if (!readsCollection(component)) return null;
  if (preview.isError) {
    return (
      <Alert color="red" title="No preview">
        {errorMessage(preview.error)}
      </Alert>
    );
  }
  if (preview.data?.unsupported) {
    return <Text c="dimmed">The server draws this component once the dashboard is saved.</Text>;
  }
  const data = preview.data?.components[component.component_id];
  return (
    <Paper
      withBorder
      p="xs"
      h={component.type === 'figure' || component.type === 'multiqc' ? 280 : undefined}
      aria-label="Preview"
      component="section"
    >
      {data === undefined ? (
        <Loader size="sm" role="status" aria-label="Loading the preview" />
      ) : (
        <CellBody
          dashboardId={dashboardId}
          component={component}
          cell={{ data, waiting: preview.isFetching, error: null }}
          view={NO_VIEW}
        />
      )}
    </Paper>
  );
}

/**
 * The side panel that edits one component: its title and data collection, then what its type
 * needs (the chart builder for figures), with a live preview. Apply puts it on the dashboard as one
 * undoable step.
 */
export function ComponentPanel({
  dashboardId,
  projectId,
  initial,
  isNew,
  onApply,
  onClose,
}: {
  dashboardId: string;
  projectId: string;
  initial: DashboardComponent;
  isNew: boolean;
  onApply: (component: DashboardComponent) => void;
  onClose: () => void;
}) {
  const [component, setComponent] = useState(initial);
  const collections = useProjectCollections(projectId);
  const collectionId = readsCollection(component) ? component.data_collection_id : undefined;
  const schema = useCollectionColumns(collectionId);
  const columns = schema.data?.columns;
  const problems = problemsOf(component);
  const valid = problems.length === 0;
  const heading = `${isNew ? 'New' : 'Edit'} ${TYPE_LABELS[component.type].toLowerCase()}`;

  return (
    <Paper withBorder p="md" radius="md" component="aside" aria-label={heading} className="dashboard-editor-panel">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4">
            {heading}
          </Title>
          <Text size="xs" c="dimmed">
            {component.component_id}
          </Text>
        </Group>
        <TextInput
          label="Title"
          placeholder={component.type === 'section' ? 'required' : 'optional'}
          value={component.title ?? ''}
          onChange={(event) => setComponent(titled(component, event.currentTarget.value))}
        />
        {readsCollection(component) && (
          <Choice
            label="Data collection"
            required
            emptyLabel={collections.isPending ? 'Loading…' : 'Pick a data collection'}
            options={collectionOptions(collections.data, component.data_collection_id)}
            value={component.data_collection_id || null}
            error={collections.isError ? errorMessage(collections.error) : undefined}
            onChange={(value) => setComponent({ ...component, data_collection_id: value ?? '' })}
          />
        )}
        {schema.isError && <Alert color="red">{errorMessage(schema.error)}</Alert>}
        <TypeForm component={component} columns={columns} onChange={setComponent} />
        {valid ? (
          <Preview dashboardId={dashboardId} component={component} />
        ) : (
          <Text size="sm" c="dimmed" aria-live="polite">
            Still needed: {problems.join('; ')}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {isNew ? 'Discard' : 'Close'}
          </Button>
          <Button disabled={!valid} onClick={() => onApply(component)}>
            {isNew ? 'Add to dashboard' : 'Apply'}
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

/** The component with this title; an empty one removes it. */
function titled(component: DashboardComponent, title: string): DashboardComponent {
  const next = { ...component };
  if (title === '') delete next.title;
  else next.title = title;
  return next;
}

/** What the component's type needs: the chart builder for figures, the column for widgets, … */
function TypeForm({
  component,
  columns,
  onChange,
}: {
  component: DashboardComponent;
  columns: readonly TableColumn[] | undefined;
  onChange: (component: DashboardComponent) => void;
}) {
  return (
    <>
      {component.type === 'figure' && <FigureForm figure={component} columns={columns} onChange={onChange} />}
      {component.type === 'card' && <CardForm card={component} columns={columns} onChange={onChange} />}
      {component.type === 'interactive' && (
        <InteractiveForm interactive={component} columns={columns} onChange={onChange} />
      )}
      {component.type === 'table' && <TableForm table={component} columns={columns} onChange={onChange} />}
      {component.type === 'text' && <TextForm text={component} onChange={onChange} />}
      {component.type === 'multiqc' && <MultiqcForm multiqc={component} onChange={onChange} />}
      {component.type === 'section' && <SectionForm section={component} onChange={onChange} />}
      {component.type === 'image' && <ImageForm image={component} columns={columns} onChange={onChange} />}
    </>
  );
}
