import type { UserDeletionSummary } from '@service/common';
import { createUserRequestSchema } from '@service/common';
import type { AppContext } from '@service/server';
import { DomainError, loadConfig } from '@service/server/basics';
import { Command } from 'commander';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

export function userCommand(): Command {
  const user = new Command('user').description('Manage accounts directly in the database.');
  user
    .command('create')
    .description('Create an account.')
    .argument('<email>', 'email address of the account')
    .option('--admin', 'give the account the admin role', false)
    .option('--password-stdin', 'read the password from the first line of standard input')
    .addHelpText(
      'after',
      '\nWithout --password-stdin a strong random password is generated and printed once.\nExample: echo "$PASSWORD" | service user create ada@example.org --admin --password-stdin',
    )
    .action(async (email: string, options: { admin: boolean; passwordStdin?: boolean }) => {
      const config = loadConfig();
      const { createContext, randomSecret } = await import('@service/server');
      const password = options.passwordStdin ? await readStdin() : randomSecret();
      const request = createUserRequestSchema.safeParse({ email, password, role: options.admin ? 'admin' : 'user' });
      if (!request.success) {
        const issue = request.error.issues[0];
        throw new Error(`${String(issue?.path[0] ?? 'input')} ${issue?.message ?? 'is invalid'}`);
      }
      const context = await createContext(config);
      try {
        const created = await context.users.createAccount(request.data, { via: 'cli' });
        process.stdout.write(`Created ${created.role} ${created.email} (id ${created.id})\n`);
        if (!options.passwordStdin) process.stdout.write(`Password: ${password}\n`);
      } catch (error) {
        if (error instanceof DomainError) throw new Error(error.message);
        throw error;
      } finally {
        await context.close();
      }
    });
  user.addCommand(deleteCommand());
  return user;
}

interface DeleteOptions {
  transferTo?: string;
  deleteOwned: boolean;
  dryRun: boolean;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** "2 projects, 1 dashboard (+3 other people's dashboards in those projects)". */
function ownedText(summary: UserDeletionSummary): string {
  const others =
    summary.project_dashboards > 0
      ? ` (+${plural(summary.project_dashboards, 'dashboard')} of others in those projects)`
      : '';
  return `${plural(summary.projects, 'project')} and ${plural(summary.dashboards, 'dashboard')} it owns alone${others}`;
}

/** An account by id or email. */
async function findAccount(context: AppContext, account: string) {
  const row =
    (await context.users.repository.findById(account)) ?? (await context.users.repository.findByEmail(account));
  if (!row) throw new Error(`no account ${JSON.stringify(account)}`);
  return row;
}

async function deleteAccount(account: string, options: DeleteOptions): Promise<void> {
  if (options.deleteOwned === (options.transferTo !== undefined) && !options.dryRun) {
    throw new Error('give --transfer-to ADMIN or --delete-owned (one of them)');
  }
  const { createContext } = await import('@service/server');
  const context = await createContext(loadConfig());
  try {
    const row = await findAccount(context, account);
    if (options.dryRun) {
      const summary = await context.accountDeletion.summary(row.id);
      process.stdout.write(
        `${row.email} has ${ownedText(summary)}, ${plural(summary.active_embed_tokens, 'working embed token')} and ${plural(summary.active_sessions, 'session')}. Nothing was changed.\n`,
      );
      return;
    }
    const target = options.transferTo === undefined ? undefined : await findAccount(context, options.transferTo);
    const outcome = await context.accountDeletion.delete(
      row.id,
      { transferTo: target?.id, deleteOwned: options.deleteOwned },
      { userId: null, via: 'cli' },
    );
    const fate = outcome.owned === 'deleted' ? 'deleted' : `transferred to ${target?.email ?? outcome.transfer_to}`;
    process.stdout.write(
      `Deleted ${row.email}: ${ownedText(outcome)} ${fate}; ${plural(outcome.active_embed_tokens, 'embed token')} revoked, ${plural(outcome.active_sessions, 'session')} ended.\n`,
    );
  } catch (error) {
    if (error instanceof DomainError) throw new Error(error.message);
    throw error;
  } finally {
    await context.close();
  }
}

function deleteCommand(): Command {
  return new Command('delete')
    .description(
      'Delete an account. What it owns alone (projects, dashboards) goes to an admin or is deleted with it; its embed tokens are revoked and its sessions end at once, on every replica.',
    )
    .argument('<account>', 'email address or id of the account')
    .option('--transfer-to <admin>', 'email or id of the active admin who becomes owner of what it owns alone')
    .option('--delete-owned', 'delete what it owns alone (projects with all their data, dashboards)', false)
    .option('--dry-run', 'only print what the account owns alone; change nothing', false)
    .addHelpText(
      'after',
      '\nGive exactly one of --transfer-to and --delete-owned. Everything happens in one transaction:\na refusal (unknown or non-admin target, the last active admin) changes nothing.\nExample: service user delete ada@example.org --transfer-to ops@example.org',
    )
    .action(deleteAccount);
}
