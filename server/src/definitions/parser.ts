import { type ProjectDefinition, projectDefinitionSchema } from '@service/common';
import { type Document, isNode, LineCounter, parseDocument, visit } from 'yaml';
import { DomainError, type FieldProblem, formatPath } from '../errors.js';

export const MAX_DEFINITION_BYTES = 512 * 1024;

/** A parsed project.yaml plus a way to point at the line and column of any path in it. */
export interface ParsedDefinition {
  definition: ProjectDefinition;
  /** Adds `line`/`column` to problems whose path names a place in the document. */
  locate(problems: FieldProblem[]): FieldProblem[];
}

/**
 * The document as plain data. Aliases that expand past a few hundred nodes (a "billion laughs"
 * document) are refused instead of built: the yaml library stops at `maxAliasCount`.
 */
function expandAliases(document: Document, lineCounter: LineCounter): unknown {
  try {
    return document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error;
    let position = { line: 1, col: 1 };
    visit(document, {
      Alias(_key, node) {
        if (!node.range) return undefined;
        position = lineCounter.linePos(node.range[0]);
        return visit.BREAK;
      },
    });
    throw new DomainError('validation_failed', 'the project definition is not valid YAML', [
      {
        path: '',
        message: `${error.message}: its aliases expand too much`,
        line: position.line,
        column: position.col,
      },
    ]);
  }
}

/**
 * Parses and validates a project definition. YAML syntax errors and schema violations both come
 * back as 400 `validation_failed`, each error naming its path, line, column and the rule broken.
 */
export function parseProjectDefinition(text: string): ParsedDefinition {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    throw new DomainError(
      'validation_failed',
      'the project definition is not valid YAML',
      document.errors.map((error) => {
        const position = lineCounter.linePos(error.pos[0]);
        return {
          path: '',
          message: error.message.split('\n')[0] ?? error.message,
          line: position.line,
          column: position.col,
        };
      }),
    );
  }

  const locate = (problems: FieldProblem[]): FieldProblem[] =>
    problems.map((problem) => {
      const keys = problem.path
        .split(/\.|\[(\d+)\]/)
        .filter((part) => part !== undefined && part !== '')
        .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
      // Walk up from the exact node until one exists (e.g. a missing key points at its parent).
      for (let depth = keys.length; depth >= 0; depth--) {
        const node = depth === 0 ? document.contents : document.getIn(keys.slice(0, depth), true);
        if (isNode(node) && node.range) {
          const position = lineCounter.linePos(node.range[0]);
          return { ...problem, line: position.line, column: position.col };
        }
      }
      return problem;
    });

  const parsed = projectDefinitionSchema.safeParse(expandAliases(document, lineCounter));
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap((issue) => {
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => ({
          path: formatPath(undefined, [...issue.path, key]),
          message: 'unknown field',
        }));
      }
      return [{ path: formatPath(undefined, issue.path), message: issue.message }];
    });
    throw new DomainError('validation_failed', 'the project definition does not follow the schema', locate(problems));
  }
  return { definition: parsed.data, locate };
}
