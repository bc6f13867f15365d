export * from './audit.js';
export * from './auth.js';
export * from './capabilities.js';
export * from './pagination.js';
export * from './problem.js';
export * from './users.js';
