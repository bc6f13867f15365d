import { z } from 'zod';
import { dashboardYamlSchema } from './dashboards.js';
import { compileFilePattern, FilePatternError } from './file-pattern.js';
import { dataCollectionDefinitionSchema, joinDefinitionSchema } from './project-definition.js';
import { nameSchema, tagSchema } from './projects.js';

/**
 * Templates (docs/templates.md): one pipeline version's collections and dashboards, as a YAML file
 * in the repository's `templates/<pipeline>/<version>/template.yaml`. `service ingest DIR
 * --template <id>` applies one to a results folder (templates-apply.ts); `GET /templates` lists them.
 */

/** A variable's name, as written `${name}` in the template's strings. */
export const templateVariableNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'letters, digits and `_`, starting with a letter or `_`');

export const templateVariableSchema = z
  .strictObject({
    name: templateVariableNameSchema,
    description: z.string().min(1).max(1000),
    /** Applying the template fails when a required variable is neither given, detected nor defaulted. */
    required: z.boolean().default(false),
    default: z.string().min(1).max(255).optional(),
    /** Detected from the data: the first of `columns` that the collection's file has (a header). */
    detect: z
      .strictObject({
        collection: tagSchema,
        columns: z.array(z.string().min(1).max(255)).min(1).max(50),
      })
      .optional(),
  })
  .meta({ id: 'TemplateVariable' });
export type TemplateVariable = z.infer<typeof templateVariableSchema>;

const templateIdPattern = /^[a-z0-9][a-z0-9_.-]*(\/[A-Za-z0-9][A-Za-z0-9_.-]*)+$/;

const templateObject = z.strictObject({
  /** `<pipeline>/<version>`, e.g. `nf-core/ampliseq/2.16.0`. */
  template_id: z.string().max(200).regex(templateIdPattern, 'a path such as nf-core/ampliseq/2.16.0'),
  pipeline: z.string().min(1).max(150),
  version: z.string().min(1).max(50),
  description: z.string().min(1).max(2000),
  /**
   * How a folder is recognised without `--template`: all these files (RE2, whole relative path)
   * are present. The pipeline's own records (pipeline_info, the MultiQC report) are read first.
   */
  detect: z.strictObject({ files: z.array(z.string().min(1).max(1000)).min(1).max(20) }).optional(),
  variables: z.array(templateVariableSchema).max(50).default([]),
  collections: z.array(dataCollectionDefinitionSchema).min(1).max(200),
  joins: z.array(joinDefinitionSchema).max(200).default([]),
  dashboards: z.array(dashboardYamlSchema).min(1).max(20),
});

export const templateSchema = templateObject
  .superRefine(checkTemplate)
  .meta({ id: 'Template', title: 'Template (templates/<pipeline>/<version>/template.yaml)' });
export type Template = z.infer<typeof templateSchema>;

/** `${name}` references in a string. */
export const variableReferences = (text: string): string[] =>
  [...text.matchAll(/\$\{([^}]*)\}/g)].map((match) => match[1] as string);

/**
 * `${columns(tag)}` or `${columns(tag) - a, b}`, alone as an item of a list of columns: the
 * columns of the collection's file but those named (a wide matrix's sample columns).
 */
export const COLUMNS_EXPANSION = /^columns\(([^)]+)\)(?:\s*-\s*(.*))?$/;
export function columnsExpansion(reference: string): { tag: string; except: string[] } | null {
  const match = COLUMNS_EXPANSION.exec(reference);
  if (!match) return null;
  const except = (match[2] ?? '').split(',').map((name) => name.trim());
  return { tag: (match[1] as string).trim(), except: except.filter((name) => name !== '') };
}

/** Every string in a value, with its path. */
function* strings(value: unknown, path: (string | number)[]): Generator<[string, (string | number)[]]> {
  if (typeof value === 'string') yield [value, path];
  else if (Array.isArray(value)) for (const [index, item] of value.entries()) yield* strings(item, [...path, index]);
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) yield* strings(item, [...path, key]);
}

/** Rules across fields, each broken one its own issue, so that one round of fixes is enough. */
function checkTemplate(template: z.output<typeof templateObject>, context: z.RefinementCtx) {
  const issue = (path: (string | number)[], message: string) => context.addIssue({ code: 'custom', path, message });
  if (template.template_id !== `${template.pipeline}/${template.version}`)
    issue(['template_id'], `must be pipeline/version: ${template.pipeline}/${template.version}`);
  const tags = new Set<string>();
  const names = new Set(template.variables.map((variable) => variable.name));
  template.collections.forEach((collection, index) => {
    if (tags.has(collection.tag)) issue(['collections', index, 'tag'], 'another collection has this tag');
    tags.add(collection.tag);
    // A derived column may name a variable (`from: "\${group_by}"`), nothing else of a collection.
    const derive = collection.read_options?.derive ?? [];
    for (const [text, path] of strings(derive, ['collections', index, 'read_options', 'derive']))
      for (const name of variableReferences(text))
        if (!names.has(name)) issue(path, `\${${name}} names no variable of the template`);
  });
  for (const [index, pattern] of (template.detect?.files ?? []).entries()) {
    try {
      compileFilePattern(pattern);
    } catch (error) {
      if (!(error instanceof FilePatternError)) throw error;
      issue(['detect', 'files', index], `not a valid pattern: ${error.message}`);
    }
  }
  const seen = new Set<string>();
  template.variables.forEach((variable, index) => {
    if (seen.has(variable.name)) issue(['variables', index, 'name'], 'another variable has this name');
    seen.add(variable.name);
    if (variable.detect && !tags.has(variable.detect.collection))
      issue(['variables', index, 'detect', 'collection'], `no collection has the tag ${variable.detect.collection}`);
  });
  template.joins.forEach((join, index) => {
    for (const side of ['left', 'right'] as const)
      if (!tags.has(join[side])) issue(['joins', index, side], `no collection has the tag ${join[side]}`);
    // A join's key columns may name a variable (`left_on: ["\${group_by}"]`), nothing else.
    for (const [text, path] of strings(join, ['joins', index]))
      for (const name of variableReferences(text))
        if (!names.has(name)) issue(path, `\${${name}} names no variable of the template`);
  });
  template.dashboards.forEach((dashboard, d) => {
    dashboard.components.forEach((component, c) => {
      if ('data_collection_id' in component && !tags.has(component.data_collection_id))
        issue(
          ['dashboards', d, 'components', c, 'data_collection_id'],
          `no collection has the tag ${component.data_collection_id}`,
        );
    });
    for (const [text, path] of strings(dashboard, ['dashboards', d]))
      for (const name of variableReferences(text)) {
        const expansion = columnsExpansion(name);
        if (expansion && !tags.has(expansion.tag)) issue(path, `no collection has the tag ${expansion.tag}`);
        else if (!expansion && !names.has(name)) issue(path, `\${${name}} names no variable of the template`);
      }
  });
}

/** `GET /templates`: what a person chooses from, without the collections and dashboards. */
export const templateSummarySchema = z
  .object({
    template_id: z.string(),
    pipeline: z.string(),
    version: z.string(),
    description: z.string(),
    variables: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        required: z.boolean(),
        /** The value a variable takes when it is neither given nor detected from the data. */
        default: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'TemplateSummary' });
export type TemplateSummary = z.infer<typeof templateSummarySchema>;

export const templateListSchema = z.object({ items: z.array(templateSummarySchema) }).meta({ id: 'TemplateList' });
export type TemplateList = z.infer<typeof templateListSchema>;

export const summarizeTemplate = (template: Template): TemplateSummary => ({
  template_id: template.template_id,
  pipeline: template.pipeline,
  version: template.version,
  description: template.description,
  variables: template.variables.map(({ name, description, required, default: fallback }) => ({
    name,
    description,
    required,
    default: fallback ?? null,
  })),
});

/**
 * `POST /projects/from-template` (docs/templates.md "From the web app"): a template applied to a
 * folder on the server; with `dry_run`, only what it would make (the variables detected included).
 */
export const templateProjectRequestSchema = z.strictObject({
  template_id: z.string().min(1).max(200),
  name: nameSchema,
  location: z
    .string()
    .min(1)
    .max(4096)
    .describe('an absolute folder on the server, inside SERVICE_INGESTION_ALLOWED_ROOTS'),
  variables: z.record(templateVariableNameSchema, z.string().min(1).max(255)).default({}),
  dry_run: z.boolean().default(false),
});
export type TemplateProjectRequest = z.input<typeof templateProjectRequestSchema>;

export const templateProjectAnswerSchema = z
  .object({
    template_id: z.string(),
    /** Every variable with a value: given, detected from the data or defaulted. */
    variables: z.record(z.string(), z.string()),
    /** The collections made, each with the number of files of the folder it takes. */
    collections: z.array(z.object({ tag: z.string(), files: z.number().int() })),
    left_out: z.object({ collections: z.array(z.string()), components: z.array(z.string()) }),
    /** Null on a dry run; otherwise the project made, its first dashboard and the ingestion started. */
    project_id: z.string().nullable(),
    dashboard_id: z.string().nullable(),
    job_id: z.string().nullable(),
    run_id: z.string().nullable(),
  })
  .meta({ id: 'TemplateProject' });
export type TemplateProject = z.infer<typeof templateProjectAnswerSchema>;
