import { type ProjectDefinition, projectDefinitionSchema } from '@service/common';
import type { FieldProblem } from '../errors.js';
import { parseLocatedYaml } from '../yaml/located.js';

export const MAX_DEFINITION_BYTES = 512 * 1024;

/** A parsed project.yaml plus a way to point at the line and column of any path in it. */
export interface ParsedDefinition {
  definition: ProjectDefinition;
  /** Adds `line`/`column` to problems whose path names a place in the document. */
  locate(problems: FieldProblem[]): FieldProblem[];
}

/**
 * Parses and validates a project definition. YAML syntax errors and schema violations both come
 * back as 400 `validation_failed`, each error naming its path, line, column and the rule broken.
 */
export function parseProjectDefinition(text: string): ParsedDefinition {
  const { value, locate } = parseLocatedYaml(text, projectDefinitionSchema, 'project definition');
  return { definition: value, locate };
}
