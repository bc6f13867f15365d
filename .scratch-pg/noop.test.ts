import { it } from 'vitest'; it('noop', () => {});
