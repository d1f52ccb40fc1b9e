import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../config/AppConfig.js"
import { requestState } from "../http/RequestState.js"

/*
 * What drops a kept answer: a tag names something an answer shows, and every write that changes it drops the
 * answers tagged with it (readcache/ReadsChanged.ts), on every instance, before the write answers.
 */
/** Every page of GET /requests (any filter): a request created, rewritten, offered on, expired. */
export const REQUEST_LISTS = "requests"
/** GET /requests/{id}: the request, its offers' count and state, its deal. */
export const requestTag = (requestId: string) => `request:${requestId}`
/** GET /seller-profiles/{id} of the seller whose user this is: the profile, its trust figures, its ratings. */
export const sellerTag = (sellerUserId: string) => `seller:${sellerUserId}`
/** Anything that shows the user's row (a request's buyer name): their profile changed. */
export const userTag = (userId: string) => `user:${userId}`

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
/** The one spelling of each tag, as another instance's announcement is checked against it. */
const ID_TAG = new RegExp(`^(request|seller|user):${UUID}$`)
export const isReadTag = (tag: string) => tag === REQUEST_LISTS || ID_TAG.test(tag)

/** An encoded answer as it is sent again. */
export interface CachedAnswer {
  readonly body: Uint8Array
  readonly contentType: string
}

/**
 * What the handler of a cacheable read says about its answer, in the request's state, for the middleware to
 * keep it: what drops it, when it goes at the latest, and who sees it unmasked (everybody else sees the
 * masked variant, kept apart).
 */
export interface Cacheable {
  readonly tags: ReadonlyArray<string>
  /** Epoch ms: the first moment its content changes by time alone (a request's expiry), if any. */
  readonly changesAt?: number | undefined
  readonly fullViewers?: ReadonlyArray<string> | undefined
}

/** Marks the answer of the running read as one the read cache may keep (a no-op outside a request). */
export const cacheableAnswer = (cacheable: Cacheable): Effect.Effect<void> =>
  Effect.map(requestState, (state) => {
    state.cacheable = cacheable
  })

interface Route {
  readonly tags: ReadonlyArray<string>
  readonly fullViewers: ReadonlyArray<string>
  expiresAt: number
  readonly variants: Map<string, CachedAnswer>
  bytes: number
  /** What the route costs with no answer kept: its key (as long as a URL may be) and its fixed overhead. */
  readonly emptyBytes: number
  /** The reads counter when the route was last placed at the back of the line, and when it was last read. */
  placedAt: number
  readAt: number
}

export interface ReadCacheService {
  readonly enabled: boolean
  /** The generation a read starts under: an answer read before a drop of one of its tags is not kept. */
  readonly generation: () => number
  /** Whether anything is kept for the route (path and normalised query), so a viewer is worth resolving. */
  readonly has: (routeKey: string, now: number) => boolean
  /** The answer kept for the route and this viewer (language, and whether they see it unmasked). */
  readonly lookup: (
    routeKey: string,
    viewer: { readonly language: string; readonly userId: string | undefined },
    now: number
  ) => CachedAnswer | undefined
  readonly store: (
    routeKey: string,
    viewer: { readonly language: string; readonly userId: string | undefined },
    answer: CachedAnswer,
    cacheable: Cacheable,
    startedAt: { readonly generation: number; readonly now: number }
  ) => void
  /** Drops every answer tagged with one of `tags` (on this instance). */
  readonly drop: (tags: ReadonlyArray<string>) => void
  /** Whether drops announced elsewhere reach this instance; while not, nothing is kept (as the session cache). */
  readonly trust: (changesHeard: boolean) => void
  readonly size: () => { readonly routes: number; readonly bytes: number }
}

/** Generations of the tags' last drops, in stripes: bounded memory whatever the number of ids dropped. */
const STRIPES = 4096
const stripeOf = (tag: string) => {
  let hash = 0x811c9dc5
  for (let i = 0; i < tag.length; i++) hash = Math.imul(hash ^ tag.charCodeAt(i), 0x01000193)
  return (hash >>> 0) % STRIPES
}

/** The fixed overhead of a route (its maps, tags) and of each answer beside its bytes, so tiny answers still count. */
const ENTRY_OVERHEAD = 256

/** Which of an answer's variants a viewer reads: their language, and their own unmasked one if they may. */
export const variantKey = (
  fullViewers: ReadonlyArray<string>,
  viewer: { readonly language: string; readonly userId: string | undefined }
) => `${viewer.language}|${viewer.userId !== undefined && fullViewers.includes(viewer.userId) ? viewer.userId : "-"}`

/**
 * Encoded answers of public reads by route, least recently read first, within `maxBytes`; each lives at most
 * `ttlMs` and never past the first change time alone makes to it. Drops come by tag; a read that started
 * before a drop of one of its tags is answered but not kept (a generation per stripe of tags), and while
 * drops from other instances cannot be heard nothing is kept.
 */
export const makeReadCache = (options: {
  readonly enabled: boolean
  readonly maxBytes: number
  readonly ttlMs: number
}): ReadCacheService => {
  /*
   * Routes stay where they are in this map while they are read, dropped or kept again: a V8 Map keeps a deleted
   * entry in its key's hash chain until the whole table is rebuilt, so deleting and setting one hot key again
   * and again (a move to the back on every read, a drop and a keep on every create) makes each later set of
   * it walk thousands of dead entries (70 µs a read with 38,000 routes). Reads only stamp the route; the
   * eviction walk gives a route read since it was placed a second chance at the back; a dropped or expired
   * route is emptied in place and filled again there.
   */
  const routes = new Map<string, Route>()
  const byTag = new Map<string, Set<string>>()
  const droppedAt = new Float64Array(STRIPES)
  let generation = 0
  let resetAt = 0
  let trusted = true
  let bytes = 0
  let liveRoutes = 0
  let reads = 0

  /** Frees a route's answers, keeping its place in the map (an empty route costs its key and overhead only). */
  const empty = (route: Route) => {
    if (route.variants.size === 0) return
    route.variants.clear()
    bytes -= route.bytes - route.emptyBytes
    route.bytes = route.emptyBytes
    liveRoutes--
  }

  const remove = (routeKey: string) => {
    const route = routes.get(routeKey)
    if (route === undefined) return
    empty(route)
    routes.delete(routeKey)
    bytes -= route.bytes
    for (const tag of route.tags) {
      const keys = byTag.get(tag)
      keys?.delete(routeKey)
      if (keys?.size === 0) byTag.delete(tag)
    }
  }

  const live = (routeKey: string, now: number) => {
    const route = routes.get(routeKey)
    if (route === undefined || route.variants.size === 0) return undefined
    if (now >= route.expiresAt) {
      empty(route)
      return undefined
    }
    return route
  }

  /** Down to seven eighths, from the front: a route read since it was placed goes to the back once instead. */
  const evict = () => {
    for (const [routeKey, route] of routes) {
      if (bytes <= options.maxBytes - options.maxBytes / 8) break
      if (route.variants.size > 0 && route.readAt > route.placedAt) {
        routes.delete(routeKey)
        routes.set(routeKey, route)
        route.placedAt = ++reads
      } else {
        remove(routeKey)
      }
    }
  }

  return {
    enabled: options.enabled,
    generation: () => generation,
    has: (routeKey, now) => live(routeKey, now) !== undefined,
    lookup: (routeKey, viewer, now) => {
      const route = live(routeKey, now)
      if (route === undefined) return undefined
      const answer = route.variants.get(variantKey(route.fullViewers, viewer))
      if (answer !== undefined) route.readAt = ++reads
      return answer
    },
    store: (routeKey, viewer, answer, cacheable, started) => {
      if (!options.enabled || !trusted || started.generation < resetAt) return
      for (const tag of cacheable.tags) if (droppedAt[stripeOf(tag)]! > started.generation) return
      const expiresAt = Math.min(started.now + options.ttlMs, cacheable.changesAt ?? Number.POSITIVE_INFINITY)
      if (expiresAt <= started.now) return
      const size = answer.body.byteLength + ENTRY_OVERHEAD
      if (size > options.maxBytes / 16) return
      const fullViewers = cacheable.fullViewers ?? []
      let route = routes.get(routeKey)
      // One past its life is emptied first, so it is kept again with a life of its own.
      if (route !== undefined && started.now >= route.expiresAt) empty(route)
      const same =
        route !== undefined &&
        route.tags.length === cacheable.tags.length &&
        route.tags.every((tag, i) => tag === cacheable.tags[i]) &&
        route.fullViewers.length === fullViewers.length &&
        route.fullViewers.every((id, i) => id === fullViewers[i])
      if (!same) {
        remove(routeKey)
        const emptyBytes = ENTRY_OVERHEAD + routeKey.length
        route = {
          tags: [...cacheable.tags],
          fullViewers: [...fullViewers],
          expiresAt,
          variants: new Map(),
          bytes: emptyBytes,
          emptyBytes,
          placedAt: ++reads,
          readAt: 0
        }
        routes.set(routeKey, route)
        bytes += emptyBytes
      }
      const kept = route!
      if (kept.variants.size === 0) {
        kept.expiresAt = expiresAt
        liveRoutes++
        // Linked again: a drop unlinks what it empties, so the next drop of a tag walks only what was kept since.
        for (const tag of kept.tags) {
          const keys = byTag.get(tag)
          if (keys === undefined) byTag.set(tag, new Set([routeKey]))
          else keys.add(routeKey)
        }
      }
      const key = variantKey(kept.fullViewers, viewer)
      const previous = kept.variants.get(key)
      const added = previous === undefined ? size : answer.body.byteLength - previous.body.byteLength
      kept.variants.set(key, answer)
      kept.bytes += added
      bytes += added
      if (bytes > options.maxBytes) evict()
    },
    drop: (tags) => {
      generation++
      for (const tag of tags) {
        droppedAt[stripeOf(tag)] = generation
        const keys = byTag.get(tag)
        if (keys === undefined) continue
        for (const routeKey of keys) {
          const route = routes.get(routeKey)
          if (route !== undefined) empty(route)
        }
        // Cleared, not deleted: the tag's set is filled again in place by the next answer kept.
        keys.clear()
      }
    },
    trust: (changesHeard) => {
      generation++
      resetAt = generation
      trusted = changesHeard
      routes.clear()
      byTag.clear()
      bytes = 0
      liveRoutes = 0
    },
    size: () => ({ routes: liveRoutes, bytes })
  }
}

/** The process's one read cache: the edge middleware reads and fills it, the writes' announcements drop from it. */
export class ReadCache extends Context.Tag("@talab/http-server/ReadCache")<ReadCache, ReadCacheService>() {
  static readonly layer: Layer.Layer<ReadCache, never, AppConfig> = Layer.effect(
    ReadCache,
    Effect.map(AppConfig, (config) => makeReadCache(config.readCache))
  )
}
