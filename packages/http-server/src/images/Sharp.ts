import type Sharp from "sharp"

let loading: Promise<typeof Sharp> | undefined

/**
 * sharp, loaded at the first avatar rather than at start: its native library is about 15 MB of resident memory
 * (docs/SCALING.md, "Memory at rest"), which an instance that never decodes an image need not hold. Each image
 * is decoded on one libvips thread: the decode gate (images/DecodeGate.ts), not sharp, decides how many cores
 * decoding takes.
 */
export const loadSharp = (): Promise<typeof Sharp> =>
  (loading ??= import("sharp").then((module) => {
    const sharp = (module as unknown as { default?: typeof Sharp }).default ?? (module as unknown as typeof Sharp)
    sharp.concurrency(1)
    return sharp
  }))
