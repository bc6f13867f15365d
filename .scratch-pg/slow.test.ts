import { it } from 'vitest'; it('slow', async () => { await new Promise((r) => setTimeout(r, 20000)); }, 30000);
