import type { Plugin } from 'vite';

/**
 * Chromium's explicit compile hint (Chrome 136+): with this first line V8 compiles every function
 * of the script while it streams it in, on a background thread, instead of compiling each one on
 * the main thread when it is first called. The app's chunks are loaded when their code is about to
 * run, so most of their functions are called at once. A first measurement on the project page saw
 * the main thread's CPU time to the first rows fall; later traces found no difference either way
 * (docs/performance.md, `web`). Other browsers read it as a comment.
 */
const COMPILE_ALL_ON_LOAD = '//# allFunctionsCalledOnLoad\n';

export function compileHints(): Plugin {
  return {
    name: 'service-compile-hints',
    apply: 'build',
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        for (const output of Object.values(bundle)) {
          if (output.type === 'chunk') output.code = `${COMPILE_ALL_ON_LOAD}${output.code}`;
        }
      },
    },
  };
}
