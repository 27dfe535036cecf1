/**
 * The parts of undici that commands load on first use (`import('../runtime/undici-on-use.js')`),
 * not at start. Dynamic imports name this ES module, never 'undici' itself: the CLI's bundle
 * (scripts/bundle-cli.mjs) turns a dynamic import of a CommonJS package into a chunk with only a
 * default export, where `const { Agent } = await import('undici')` finds nothing ("Agent is not a
 * constructor"); a static import of it, as here, keeps its named exports.
 */
export { Agent, request } from 'undici';
