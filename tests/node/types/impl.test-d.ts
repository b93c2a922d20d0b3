// Type test of the implementation against the declarations, checked by `npx tsc -p
// tsconfig.json`; never run. The sources (bindings-node/js/*.cjs, index.mjs) are type-checked
// with the types their JSDoc gives them (`// @ts-check`); here what the package exports at run
// time is assigned to what index.d.ts declares. So an export the declarations name but the
// implementation lacks, a missing method or property of a class (Client, Server, Context, the
// errors...), or a signature the declarations do not allow (a parameter of another type, a
// required parameter declared optional, a result of another type) fails tsc. Exports the
// declarations leave out are allowed (they are not public API).

import type { Context, TraceContext } from 'hypermcp';

/**
 * What the package declares, as an implementation must provide it. The constructors of
 * Context and TraceContext are private (the server makes them for each request), so of
 * them only what they make is compared: their instances must be what the classes declare.
 */
type Declared = Omit<typeof import('hypermcp'), 'Context' | 'TraceContext'> & {
  Context: abstract new (...args: never[]) => Context;
  TraceContext: abstract new (...args: never[]) => TraceContext;
};

// CommonJS: `require("hypermcp")` is bindings-node/js/index.cjs.
declare const cjsImpl: typeof import('../../../bindings-node/js/index.cjs');
const cjs: Declared = cjsImpl;

// ES modules: `import ... from "hypermcp"` is bindings-node/js/index.mjs (its named exports and
// its default export, the CommonJS module).
declare const esmImpl: typeof import('../../../bindings-node/js/index.mjs');
const esm: Declared = esmImpl;
const esmDefault: Declared = esmImpl.default;

void cjs, esm, esmDefault;
