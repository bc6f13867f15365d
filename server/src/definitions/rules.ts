import type { ProjectDefinition } from '@service/common';
import { DomainError, type FieldProblem } from '../errors.js';
import { isInsideAllowedRoots } from '../locations/allowed-roots.js';
import { compilePattern, compileRunsRegex } from '../locations/patterns.js';
import { checkTiming } from '../workflows/timing-columns.js';
import { type ParsedDefinition, parseProjectDefinition } from './parser.js';

/**
 * Parses a project.yaml and checks what the schema cannot say: locations inside the allowed
 * roots, compilable patterns, unique names, joins that resolve. Needs no database, so the CLI
 * validates with it too.
 */
export function validateProjectDefinition(text: string, allowedRoots: readonly string[]): ProjectDefinition {
  return checkProjectDefinition(text, allowedRoots).definition;
}

/** `validateProjectDefinition`, also answering how to give later problems their line and column. */
export function checkProjectDefinition(text: string, allowedRoots: readonly string[]): ParsedDefinition {
  const parsed = parseProjectDefinition(text);
  const { definition, locate } = parsed;
  const refused = locationProblems(definition, allowedRoots);
  const problems = locate([...refused, ...semanticProblems(definition)]).sort(inDocumentOrder);
  if (refused.length > 0) {
    // The refusal the contract names (docs/architecture.md "Ingestion") wins; the other errors still come
    // along, so one round of fixes is enough.
    throw new DomainError(
      'location_not_allowed',
      'the server may only read folders inside its allowed roots',
      problems,
    );
  }
  if (problems.length > 0) throw new DomainError('validation_failed', 'the project definition has errors', problems);
  return parsed;
}

function inDocumentOrder(a: FieldProblem, b: FieldProblem): number {
  return (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0);
}

function locationProblems(definition: ProjectDefinition, allowedRoots: readonly string[]): FieldProblem[] {
  return definition.workflows.flatMap((workflow, w) =>
    (workflow.data_location?.locations ?? []).flatMap((location, l) =>
      isInsideAllowedRoots(location, allowedRoots)
        ? []
        : [
            {
              path: `workflows[${w}].data_location.locations[${l}]`,
              message: `${location} is not inside SERVICE_INGESTION_ALLOWED_ROOTS`,
            },
          ],
    ),
  );
}

function semanticProblems(definition: ProjectDefinition): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const tags = new Map<string, number>();
  definition.workflows.forEach((workflow, w) => {
    const at = `workflows[${w}]`;
    if (definition.workflows.findIndex((other) => other.name === workflow.name) !== w) {
      problems.push({ path: `${at}.name`, message: 'another workflow has this name' });
    }
    const runsRegex = workflow.data_location?.runs_regex;
    if (runsRegex !== undefined) {
      try {
        compileRunsRegex(runsRegex, `${at}.data_location.runs_regex`);
      } catch (error) {
        problems.push(...(error instanceof DomainError ? (error.errors ?? []) : []));
      }
    }
    try {
      checkTiming(workflow, workflow.data_location !== undefined, at);
    } catch (error) {
      problems.push(...(error instanceof DomainError ? (error.errors ?? []) : []));
    }
    workflow.data_collections.forEach((collection, c) => {
      try {
        compilePattern(collection.pattern);
      } catch (error) {
        const detail = error instanceof DomainError ? error.errors?.[0]?.message : undefined;
        problems.push({
          path: `${at}.data_collections[${c}].pattern`,
          message: detail ?? 'not a valid regular expression',
        });
      }
      if (workflow.data_collections.findIndex((other) => other.tag === collection.tag) !== c) {
        problems.push({
          path: `${at}.data_collections[${c}].tag`,
          message: 'another data collection of this workflow has this tag',
        });
      }
      tags.set(collection.tag, (tags.get(collection.tag) ?? 0) + 1);
    });
  });
  definition.joins?.forEach((join, j) => {
    for (const side of ['left', 'right'] as const) {
      const count = tags.get(join[side]) ?? 0;
      if (count !== 1) {
        problems.push({
          path: `joins[${j}].${side}`,
          message:
            count === 0
              ? `no data collection tagged ${join[side]}`
              : `${join[side]} names data collections in several workflows`,
        });
      }
    }
  });
  return problems;
}
