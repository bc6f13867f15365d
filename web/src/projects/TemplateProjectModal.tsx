import { Alert, Button, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import {
  type TemplateProject,
  type TemplateSummary,
  templateListSchema,
  templateProjectAnswerSchema,
} from '@service/common';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useApi } from '../auth/session.js';
import { ErrorList } from '../components/ErrorList.js';

/** What a dry run found: the collections, and what the folder lacks. */
function FolderCheck({ plan }: { plan: TemplateProject }) {
  const { collections, components } = plan.left_out;
  return (
    <Alert color="blue" title="What the folder gives" aria-label="What the folder gives">
      <Stack gap={4}>
        <Text size="sm">
          {plan.collections.length} collections of {plan.collections.reduce((sum, item) => sum + item.files, 0)} files.
        </Text>
        {collections.length > 0 && <Text size="sm">Left out, no file for them: {collections.join(', ')}.</Text>}
        {components.length > 0 && <Text size="sm">Components left out: {components.join(', ')}.</Text>}
      </Stack>
    </Alert>
  );
}

/** One field per variable of the template, its default or detected value as the placeholder. */
function VariableFields({
  template,
  values,
  detected,
  onChange,
}: {
  template: TemplateSummary;
  values: Record<string, string>;
  detected: Record<string, string>;
  onChange: (name: string, value: string) => void;
}) {
  return (
    <>
      {template.variables.map((variable) => (
        <TextInput
          key={variable.name}
          label={variable.name}
          description={variable.description}
          required={variable.required}
          placeholder={
            detected[variable.name] ??
            variable.default ??
            (variable.required ? 'needs a value' : 'detected from the data when the folder has it')
          }
          value={values[variable.name] ?? ''}
          onChange={(event) => onChange(variable.name, event.currentTarget.value)}
        />
      ))}
    </>
  );
}

/** The template to apply, chosen from `GET /templates`, with its description once chosen. */
function TemplateChoice({
  templates,
  value,
  onChange,
}: {
  templates: TemplateSummary[] | null;
  value: string | null;
  onChange: (template: TemplateSummary | null) => void;
}) {
  const chosen = templates?.find((item) => item.template_id === value) ?? null;
  return (
    <>
      <Select
        label="Template"
        placeholder={templates === null ? 'Loading the templates…' : 'Choose a pipeline template'}
        data={(templates ?? []).map((item) => ({ value: item.template_id, label: `${item.pipeline} ${item.version}` }))}
        value={value}
        onChange={(next) => onChange(templates?.find((item) => item.template_id === next) ?? null)}
        required
      />
      {chosen && (
        <Text size="sm" c="dimmed">
          {chosen.description}
        </Text>
      )}
    </>
  );
}

/** The dry run ("Check the folder") and the creation, which opens the dashboard made. */
function useTemplateProjectRequests(body: (dryRun: boolean) => Record<string, unknown>, onClose: () => void) {
  const api = useApi();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const check = useMutation({
    mutationFn: () => api.request('/projects/from-template', templateProjectAnswerSchema, { json: body(true) }),
  });
  const create = useMutation({
    mutationFn: () => api.request('/projects/from-template', templateProjectAnswerSchema, { json: body(false) }),
    onSuccess: (made) => {
      void queryClient.invalidateQueries({ queryKey: ['projects'] });
      onClose();
      navigate(made.dashboard_id ? `/dashboards/${made.dashboard_id}` : `/projects/${made.project_id}`);
    },
  });
  return { check, create };
}

/**
 * New project from a template (docs/templates.md "From the web app"): the template, its
 * variables as a form, a folder on the server to read; "Check the folder" asks the server what it
 * would make (the variables detected), "Create" makes the project, its dashboards, and starts the
 * ingestion, then opens the dashboard.
 */
export function TemplateProjectModal({ onClose }: { onClose: () => void }) {
  const api = useApi();
  const templates = useQuery({
    queryKey: ['templates'],
    queryFn: ({ signal }) => api.request('/templates', templateListSchema, { signal }),
  });
  const [templateId, setTemplateId] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [location, setLocation] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const template = templates.data?.items.find((item) => item.template_id === templateId) ?? null;
  const { check, create } = useTemplateProjectRequests(
    (dryRun) => ({
      template_id: templateId,
      name: name.trim(),
      location: location.trim(),
      variables: Object.fromEntries(Object.entries(values).filter(([, value]) => value.trim() !== '')),
      dry_run: dryRun,
    }),
    onClose,
  );
  const ready = template !== null && name.trim() !== '' && location.trim() !== '';
  return (
    <Modal opened onClose={onClose} title="New project from a template" size="lg">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <Stack>
          <TemplateChoice
            templates={templates.data?.items ?? null}
            value={templateId}
            onChange={(chosen) => {
              setTemplateId(chosen?.template_id ?? null);
              setValues({});
              check.reset();
              if (chosen && name.trim() === '') setName(chosen.pipeline.split('/').pop() ?? '');
            }}
          />
          <TextInput label="Name" required value={name} onChange={(event) => setName(event.currentTarget.value)} />
          <TextInput
            label="Results folder on the server"
            description="An absolute path inside the folders the server may read (SERVICE_INGESTION_ALLOWED_ROOTS); it is read in place."
            placeholder="/srv/results/ampliseq"
            required
            value={location}
            onChange={(event) => {
              setLocation(event.currentTarget.value);
              check.reset();
            }}
          />
          {template && (
            <VariableFields
              template={template}
              values={values}
              detected={check.data?.variables ?? {}}
              onChange={(variable, value) => setValues((current) => ({ ...current, [variable]: value }))}
            />
          )}
          {check.data && <FolderCheck plan={check.data} />}
          {check.isError && <ErrorList error={check.error} title="The folder cannot be used" />}
          {create.isError && <ErrorList error={create.error} title="Could not create the project" />}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Close
            </Button>
            <Button variant="default" onClick={() => check.mutate()} loading={check.isPending} disabled={!ready}>
              Check the folder
            </Button>
            <Button type="submit" loading={create.isPending} disabled={!ready}>
              Create
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
