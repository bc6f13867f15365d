import { type JobKind, jobKindSchema } from '@service/common';

export interface JobTools {
  /** Aborted when the job is cancelled or the worker shuts down. */
  signal: AbortSignal;
  /**
   * Asks the queue, not just the signal, whether the job is still wanted; throws when it was
   * cancelled. Tasks call it right before an irreversible step (a commit).
   */
  checkpoint(): Promise<void>;
  /** Writes the job's current step, detail and progress (0..1) for pollers to see. */
  report(update: { step?: string; detail?: string | null; progress?: number | null }): Promise<void>;
}

export interface ClaimedJob {
  jobId: string;
  payload: unknown;
  userId: string | null;
  projectId: string | null;
  /** The worker running it (`host:pid:id`) and which attempt this is (1 the first time). */
  worker: string;
  attempt: number;
}

/** Does the work of one kind of job and answers its result. */
export type JobHandler = (job: ClaimedJob, tools: JobTools) => Promise<unknown>;

/** One handler per job kind; workers refuse to start unless every kind of the product has one. */
export class JobHandlers {
  private readonly handlers = new Map<string, JobHandler>();

  register(kind: JobKind, handler: JobHandler): this {
    return this.add(kind, handler);
  }

  /**
   * Adds a kind that is not the product's, for code outside it (the `jobs` benchmark's
   * `queue.probe`, a test's own task): no route creates such a job and `/jobs` never shows one.
   */
  registerExtra(kind: string, handler: JobHandler): this {
    if (jobKindSchema.safeParse(kind).success) throw new Error(`job kind ${kind} is the product's own`);
    return this.add(kind, handler);
  }

  private add(kind: string, handler: JobHandler): this {
    if (this.handlers.has(kind)) throw new Error(`job kind ${kind} has two handlers`);
    this.handlers.set(kind, handler);
    return this;
  }

  get(kind: string): JobHandler | undefined {
    return this.handlers.get(kind);
  }

  assertComplete(): void {
    const missing = jobKindSchema.options.filter((kind) => !this.handlers.has(kind));
    if (missing.length > 0) throw new Error(`no handler for job kinds: ${missing.join(', ')}`);
  }
}
