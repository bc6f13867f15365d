import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareVersions, type Template, templateSchema } from '@service/common';
import { DomainError, type FieldProblem } from '../errors.js';
import { parseLocatedYaml } from '../yaml/located.js';

/** The templates shipped with the repository: `templates/<pipeline>/<version>/template.yaml`. */
export const TEMPLATES_FOLDER = fileURLToPath(new URL('../../../templates', import.meta.url));
const TEMPLATE_FILE = 'template.yaml';

/** One template file's problems, each with its path, line and column. */
export interface TemplateFileProblems {
  file: string;
  problems: FieldProblem[];
}

async function* templateFiles(dir: string): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* templateFiles(full);
    else if (entry.isFile() && entry.name === TEMPLATE_FILE) yield full;
  }
}

/**
 * Reads and checks one template file: every problem at once (syntax, schema, the rules across
 * fields, the folder it sits in), each with its line and column.
 */
export function checkTemplateFile(text: string, folder: string | null): Template | TemplateFileProblems['problems'] {
  try {
    const { value, locate } = parseLocatedYaml(text, templateSchema, 'template');
    if (folder !== null && folder !== value.template_id)
      return locate([{ path: 'template_id', message: `the file sits in templates/${folder}: the id must match` }]);
    return value;
  } catch (error) {
    if (error instanceof DomainError && error.code === 'validation_failed') return error.errors ?? [];
    throw error;
  }
}

/** Every template of a folder, checked; files with problems are left out and reported. */
export async function loadTemplates(dir: string): Promise<{ templates: Template[]; problems: TemplateFileProblems[] }> {
  const templates: Template[] = [];
  const problems: TemplateFileProblems[] = [];
  for await (const file of templateFiles(dir)) {
    const folder = relative(dir, join(file, '..')).split(sep).join('/');
    const checked = checkTemplateFile(await readFile(file, 'utf8'), folder);
    if (Array.isArray(checked)) problems.push({ file: relative(dir, file), problems: checked });
    else templates.push(checked);
  }
  templates.sort((a, b) => a.pipeline.localeCompare(b.pipeline) || compareVersions(b.version, a.version));
  return { templates, problems };
}

/** The shipped templates, read once per process (they change only with a new release). */
export class TemplateCatalog {
  private loaded: Promise<Template[]> | null = null;

  constructor(
    private readonly dir: string = TEMPLATES_FOLDER,
    private readonly warn: (message: string) => void = () => {},
  ) {}

  list(): Promise<Template[]> {
    this.loaded ??= loadTemplates(this.dir).then(({ templates, problems }) => {
      for (const { file, problems: list } of problems)
        this.warn(
          `template ${file} left out: ${list.map((p) => `${p.line ?? '?'}:${p.column ?? '?'} ${p.path} ${p.message}`).join('; ')}`,
        );
      return templates;
    });
    return this.loaded;
  }

  /** A template by its id, or by its pipeline alone (its newest version); 404 otherwise. */
  async get(id: string): Promise<Template> {
    const templates = await this.list();
    const found =
      templates.find((template) => template.template_id === id) ??
      templates.find((template) => template.pipeline === id);
    if (!found) {
      const known = templates.map((template) => template.template_id).join(', ') || 'none';
      throw new DomainError('not_found', `no template ${id} (templates: ${known})`);
    }
    return found;
  }
}
