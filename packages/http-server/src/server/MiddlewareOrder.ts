import * as Layer from "effect/Layer"

/** An API-wide middleware: a layer made by `HttpApiBuilder.middleware`, which provides nothing. */
type ApiMiddleware = Layer.Layer<never, any, any>

/**
 * Nests the API-wide middlewares around the served app as listed, the first outermost. The framework wraps
 * each such middleware around those whose layers were built before it, and `Layer.provide` builds what it
 * provides before the layer it provides to: so providing the entries in their order, one after another, builds
 * the last entry first, which so ends up innermost.
 */
export const nestOutermostFirst =
  <const Middlewares extends ReadonlyArray<ApiMiddleware>>(middlewares: Middlewares) =>
  <A, E, R>(
    served: Layer.Layer<A, E, R>
  ): Layer.Layer<A, E | Layer.Layer.Error<Middlewares[number]>, R | Layer.Layer.Context<Middlewares[number]>> =>
    middlewares.reduce<Layer.Layer<A, any, any>>((inside, middleware) => Layer.provide(inside, middleware), served)
