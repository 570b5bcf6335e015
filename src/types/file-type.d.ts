/**
 * `file-type` is ESM-only and publishes its types through `exports`, which the
 * `node10` module resolution of this CommonJS build does not read. At run time
 * Node loads it through require(esm); this points the compiler at its types.
 */
declare module 'file-type' {
  export * from 'file-type/source/index.js';
}
