// `node --import` this file with SERVICE_TEST_LOADED_MODULES=<file> to record the modules loaded.
import { register } from 'node:module';

register('./loaded-modules-hooks.mjs', import.meta.url, { data: { file: process.env.SERVICE_TEST_LOADED_MODULES } });
