import { createUserRequestSchema } from '@service/common';
import { createContext, DomainError, loadConfig, randomSecret } from '@service/server';
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
  return user;
}
