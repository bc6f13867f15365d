import { readFile } from 'node:fs/promises';
import { API_PREFIX, DomainError, loadConfig, validateProjectDefinition } from '@service/server/basics';
import { Command } from 'commander';
import { formatProblems, type Problem, serverOf } from './api-client.js';

export function projectCommand(): Command {
  const project = new Command('project').description('Work with project definitions (project.yaml).');

  project
    .command('validate')
    .description('Check a project.yaml against the schema and this instance’s rules, without a server.')
    .argument('<file>', 'the project.yaml to check')
    .addHelpText(
      'after',
      '\nUses SERVICE_INGESTION_ALLOWED_ROOTS to check workflow locations. Exit code 1 when invalid.',
    )
    .action(async (file: string) => {
      const text = await readFile(file, 'utf8');
      try {
        const definition = validateProjectDefinition(text, loadConfig().ingestion.allowedRoots);
        process.stdout.write(`${file}: valid project "${definition.name}"\n`);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        throw new Error(`${error.message}\n${formatProblems(file, error.errors ?? [])}`);
      }
    });

  project
    .command('import')
    .description('Create or update a project on a server from a project.yaml.')
    .argument('<file>', 'the project.yaml to import')
    .option('--server <url>', 'server address (default: SERVICE_PUBLIC_URL)')
    .option('--token <token>', 'access token (default: SERVICE_TOKEN)')
    .addHelpText(
      'after',
      '\nExample: SERVICE_TOKEN=… service project import project.yaml --server https://data.example.org',
    )
    .action(async (file: string, options: { server?: string; token?: string }) => {
      const { server, token } = serverOf(options);
      const response = await fetch(`${server}${API_PREFIX}/projects/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/yaml' },
        body: await readFile(file, 'utf8'),
      });
      const answer = (await response.json().catch(() => ({}))) as {
        project_id?: string;
        created?: boolean;
        changed?: boolean;
        detail?: string;
        errors?: Problem[];
      };
      if (!response.ok) {
        throw new Error(
          `import refused (${response.status}): ${answer.detail ?? ''}\n${formatProblems(file, answer.errors ?? [])}`.trim(),
        );
      }
      const what = answer.created ? 'created' : answer.changed ? 'updated' : 'unchanged';
      process.stdout.write(`project ${answer.project_id} ${what}\n`);
    });
  return project;
}
