import { readFile } from 'node:fs/promises';
import { type ComponentError, type FigureComponent, isTreeFile } from '@service/common';
import { componentError, type ParsedTree, parseNewick, type TreeInput } from '../../analytics/index.js';
import type { DataCollectionsService } from '../../datacollections/service.js';
import type { DataCollectionsTable, FilesTable } from '../../db/tables.js';
import type { ObjectFiles } from '../../engine/object-files.js';
import { DomainError, type FieldProblem } from '../../errors.js';
import { realPathInsideRoots } from '../../locations/allowed-roots.js';

/**
 * The Newick files of a collection (docs/data.md "Trees"): its files named `*.nwk`, `*.newick`,
 * `*.tree` or `*.treefile`, which the table is built without. A tree figure draws the one its
 * `tree_file` names, else the newest. Each is parsed once per content (by its SHA-256) and kept
 * while the process runs; at most `CACHED_TREES` of them.
 */

/** A tree file larger than this is not read (about 1.5 million tips of ASV ids). */
export const MAX_TREE_BYTES = 64 * 1024 * 1024;
const CACHED_TREES = 16;

export interface TreeFilesDeps {
  collections: Pick<DataCollectionsService, 'matchingFiles'>;
  files: Pick<ObjectFiles, 'acquire'>;
  allowedRoots: readonly string[];
}

/** The tree a figure draws, and the content hash its answer is cached under. */
export interface FoundTree extends TreeInput {
  sha256: string;
}

export class TreeFiles {
  private readonly parsed = new Map<string, Promise<ParsedTree>>();

  constructor(private readonly deps: TreeFilesDeps) {}

  /** The figure's tree, parsed; 400 `validation_failed` at `tree_file` when there is none or it is not Newick. */
  async treeOf(collection: DataCollectionsTable, figure: Pick<FigureComponent, 'tree_file'>): Promise<FoundTree> {
    const trees = (await this.deps.collections.matchingFiles(collection)).filter((file) => isTreeFile(file.path));
    // Newest first (matchingFiles' order).
    const file =
      figure.tree_file === undefined ? trees[0] : trees.find((candidate) => candidate.path === figure.tree_file);
    if (file === undefined) {
      throw refusal(
        figure.tree_file === undefined
          ? 'the collection has no tree file (its pattern must match a .nwk, .newick, .tree or .treefile file)'
          : `the collection has no tree file ${figure.tree_file}`,
      );
    }
    if (file.size > MAX_TREE_BYTES) throw refusal(`${file.path} is larger than ${MAX_TREE_BYTES / 1024 / 1024} MiB`);
    try {
      return { parsed: await this.parse(file), file: file.path, sha256: file.sha256 };
    } catch (error) {
      if (error instanceof DomainError) throw refusal(`${file.path}: ${error.message}`);
      throw error;
    }
  }

  private parse(file: FilesTable): Promise<ParsedTree> {
    const known = this.parsed.get(file.sha256);
    if (known !== undefined) return known;
    const parsing = this.text(file).then(parseNewick);
    parsing.catch(() => this.parsed.delete(file.sha256));
    this.parsed.set(file.sha256, parsing);
    for (const oldest of this.parsed.keys()) {
      if (this.parsed.size <= CACHED_TREES) break;
      this.parsed.delete(oldest);
    }
    return parsing;
  }

  private async text(file: FilesTable): Promise<string> {
    if (file.source_path !== null) {
      const real = await realPathInsideRoots(file.source_path, this.deps.allowedRoots);
      if (real === null)
        throw new DomainError('validation_failed', 'it is no longer readable inside the allowed roots');
      return readFile(real, 'utf8');
    }
    if (file.storage_key === null) throw new DomainError('validation_failed', 'it has no content');
    const lease = await this.deps.files.acquire([{ key: file.storage_key, size: file.size }]);
    try {
      return await readFile(lease.paths[0] as string, 'utf8');
    } finally {
      lease.release();
    }
  }
}

/** The tree a figure draws, or its slot's error: a file that changed since the dashboard was saved. */
export async function treeOrError(
  trees: Pick<TreeFiles, 'treeOf'>,
  collection: DataCollectionsTable,
  figure: Pick<FigureComponent, 'tree_file'>,
): Promise<FoundTree | ComponentError> {
  try {
    return await trees.treeOf(collection, figure);
  } catch (error) {
    if (error instanceof DomainError) return componentError('unreadable_tree', error.message, 'tree_file');
    throw error;
  }
}

/** A tree figure's Newick file on save: present and parseable, else a problem at its `tree_file`. */
export async function treeProblems(
  trees: Pick<TreeFiles, 'treeOf'>,
  collection: DataCollectionsTable,
  figure: Pick<FigureComponent, 'tree_file'>,
  at: string,
): Promise<FieldProblem[]> {
  const found = await treeOrError(trees, collection, figure);
  return 'error' in found ? [{ path: `${at}.tree_file`, message: found.error.message }] : [];
}

function refusal(message: string): DomainError {
  return new DomainError('validation_failed', message, [{ path: 'tree_file', message }]);
}
