import { readFile, writeFile } from 'node:fs/promises';
import { API_PREFIX } from '@service/server/basics';
import { Command } from 'commander';
import { formatProblems, type Problem, type ServerOptions, serverOf } from './api-client.js';

const serverOption = ['--server <url>', 'server address (default: SERVICE_PUBLIC_URL)'] as const;
const tokenOption = ['--token <token>', 'access token (default: SERVICE_TOKEN)'] as const;

/** The problem document of a refused request, as one message (with `file:line:column` when given). */
async function refusal(response: Response, what: string, file = ''): Promise<Error> {
  const answer = (await response.json().catch(() => ({}))) as { detail?: string; errors?: Problem[] };
  const where = answer.errors === undefined ? '' : `\n${formatProblems(file, answer.errors)}`;
  return new Error(`${what} refused (${response.status}): ${answer.detail ?? ''}${where}`.trim());
}

export function dashboardCommand(): Command {
  const dashboard = new Command('dashboard').description('Keep dashboards as files (dashboard.yaml).');

  dashboard
    .command('export')
    .description('Print a dashboard as YAML, or write it to a file.')
    .argument('<id>', 'the dashboard id (the last part of its address in the web app)')
    .option('--out <file>', 'write the YAML to this file instead of standard output')
    .option(...serverOption)
    .option(...tokenOption)
    .addHelpText(
      'after',
      `
Collections are named by tag when the tag is used once in the project, so the file imports into
any project made from the same project.yaml. Schema: GET ${API_PREFIX}/dashboards/schema.

Example: SERVICE_TOKEN=… service dashboard export 0193… --server https://data.example.org --out dashboard.yaml`,
    )
    .action(async (id: string, options: ServerOptions & { out?: string }) => {
      const { server, token } = serverOf(options);
      const response = await fetch(`${server}${API_PREFIX}/dashboards/${encodeURIComponent(id)}/yaml`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (!response.ok) throw await refusal(response, 'export');
      const yaml = await response.text();
      if (options.out === undefined) process.stdout.write(yaml);
      else {
        await writeFile(options.out, yaml);
        process.stderr.write(`dashboard ${id} written to ${options.out}\n`);
      }
    });

  dashboard
    .command('import')
    .description('Create a dashboard on a server from a dashboard.yaml; prints its id.')
    .argument('<file>', 'the dashboard.yaml to import')
    .option('--project <id>', "the project to create it in (default: the file's project_id)")
    .option(...serverOption)
    .option(...tokenOption)
    .addHelpText(
      'after',
      `
Needs the right to edit the project. Each import creates a new dashboard, owned by you (private).
Problems are printed as file:line:column path: message; exit code 1.

Example: SERVICE_TOKEN=… service dashboard import dashboard.yaml --project 0193… --server https://data.example.org`,
    )
    .action(async (file: string, options: ServerOptions & { project?: string }) => {
      const { server, token } = serverOf(options);
      const query = options.project === undefined ? '' : `?project_id=${encodeURIComponent(options.project)}`;
      const response = await fetch(`${server}${API_PREFIX}/dashboards/import${query}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/yaml' },
        body: await readFile(file, 'utf8'),
      });
      if (!response.ok) throw await refusal(response, 'import', file);
      const created = (await response.json()) as { dashboard_id: string; project_id: string };
      process.stdout.write(`dashboard ${created.dashboard_id} created in project ${created.project_id}\n`);
    });
  return dashboard;
}
