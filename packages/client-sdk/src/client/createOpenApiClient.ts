import createClientExport from "openapi-fetch"

/*
 * openapi-fetch's CommonJS build sets `exports.default`. The CJS build of this package reads it the way
 * Node's ESM does (the whole `exports` object as the default), so the function is one level further down.
 */
const interop = createClientExport as typeof createClientExport | { readonly default: typeof createClientExport }

/** openapi-fetch's `createClient`, whichever module format loaded it. */
export const createOpenApiClient: typeof createClientExport = typeof interop === "function" ? interop : interop.default
