import { Button, FileButton, Group, Modal, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { importAnswerSchema, projectSchema } from '@service/common';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useApi } from '../auth/session.js';
import { TemplateProjectModal } from '../projects/TemplateProjectModal.js';
import { ErrorList } from './ErrorList.js';

export { ErrorList };

function CreateProjectModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const api = useApi();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useMutation({
    mutationFn: () => api.request('/projects', projectSchema, { json: { name, description } }),
    onSuccess: (project) => {
      void queryClient.invalidateQueries({ queryKey: ['projects'] });
      onClose();
      navigate(`/projects/${project.project_id}`);
    },
  });
  return (
    <Modal opened={opened} onClose={onClose} title="Create a project">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <Stack>
          <TextInput label="Name" required value={name} onChange={(event) => setName(event.currentTarget.value)} />
          <Textarea
            label="Description"
            autosize
            minRows={2}
            value={description}
            onChange={(event) => setDescription(event.currentTarget.value)}
          />
          {create.isError && <ErrorList error={create.error} title="Could not create the project" />}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Close
            </Button>
            <Button type="submit" loading={create.isPending} disabled={name.trim() === ''}>
              Create
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function ImportProjectModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const api = useApi();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [yaml, setYaml] = useState('');
  const importYaml = useMutation({
    mutationFn: () => api.request('/projects/import', importAnswerSchema, { json: { yaml } }),
    onSuccess: (answer) => {
      void queryClient.invalidateQueries({ queryKey: ['projects'] });
      void queryClient.invalidateQueries({ queryKey: ['project', answer.project_id] });
      void queryClient.invalidateQueries({ queryKey: ['workflows', answer.project_id] });
      onClose();
      navigate(`/projects/${answer.project_id}`);
    },
  });
  return (
    <Modal opened={opened} onClose={onClose} title="Import a project.yaml" size="lg">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          importYaml.mutate();
        }}
      >
        <Stack>
          <Group gap="xs">
            <FileButton
              onChange={(file) => {
                if (file) void file.text().then(setYaml);
              }}
              accept=".yaml,.yml,application/yaml,text/yaml"
            >
              {(props) => (
                <Button variant="default" size="xs" {...props}>
                  Load a file…
                </Button>
              )}
            </FileButton>
            <Text size="xs" c="dimmed">
              or paste it below. Importing again updates the project of the same name.
            </Text>
          </Group>
          <Textarea
            label="project.yaml"
            required
            autosize
            minRows={10}
            maxRows={24}
            ff="monospace"
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            value={yaml}
            onChange={(event) => setYaml(event.currentTarget.value)}
          />
          {importYaml.isError && <ErrorList error={importYaml.error} title="The project.yaml was not imported" />}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Close
            </Button>
            <Button type="submit" loading={importYaml.isPending} disabled={yaml.trim() === ''}>
              Import
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** "Create project", "From a template" and "Import project.yaml" for signed-in users. */
export function ProjectActions() {
  const [createOpened, create] = useDisclosure(false);
  const [templateOpened, templateModal] = useDisclosure(false);
  const [importOpened, importModal] = useDisclosure(false);
  return (
    <Group gap="xs">
      <Button onClick={create.open}>Create project</Button>
      <Button variant="default" onClick={templateModal.open}>
        From a template
      </Button>
      <Button variant="default" onClick={importModal.open}>
        Import project.yaml
      </Button>
      {createOpened && <CreateProjectModal opened onClose={create.close} />}
      {templateOpened && <TemplateProjectModal onClose={templateModal.close} />}
      {importOpened && <ImportProjectModal opened onClose={importModal.close} />}
    </Group>
  );
}
