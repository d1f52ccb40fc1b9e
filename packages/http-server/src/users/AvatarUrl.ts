import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { isSafeFileKey } from "../adapters/files/LocalFileStore.js"
import { AppConfig } from "../config/AppConfig.js"

/*
 * An avatar is stored as its path on this server (`/uploads/avatars/<key>`) and shown as an absolute URL on the
 * PUBLIC_URL of the moment: a database restored under another host, or a PUBLIC_URL changed, shows every avatar on
 * the new one. The repositories render on the way out and store the path on the way in, so the rest of the server
 * only ever sees absolute URLs.
 */

export const AVATAR_PATH = "/uploads/avatars/"

/** The PUBLIC_URL avatars are shown on; none (paths shown as stored) where no server configuration is provided. */
export class PublicUrl extends Context.Reference<PublicUrl>()("@talab/http-server/PublicUrl", {
  defaultValue: (): string | undefined => undefined
}) {}

/** PUBLIC_URL from the server's configuration. */
export const PublicUrlLive = Layer.effect(
  PublicUrl,
  Effect.map(AppConfig, (config) => config.publicUrl)
)

/** The file key of an avatar URL this server made, whatever its host; none for anything else. */
export const avatarKeyOf = (avatarUrl: string | null) => {
  const at = avatarUrl?.lastIndexOf(AVATAR_PATH) ?? -1
  const key = at < 0 ? undefined : avatarUrl!.slice(at + AVATAR_PATH.length)
  return key !== undefined && isSafeFileKey(key) ? key : undefined
}

/** What is stored for an avatar URL: its path when this server made it (any host, any PUBLIC_URL of the past). */
export const storedAvatar = (avatarUrl: string | null): string | null => {
  const key = avatarKeyOf(avatarUrl)
  return key === undefined ? avatarUrl : `${AVATAR_PATH}${key}`
}

/** What is shown for a stored avatar: its path on `publicUrl`. */
export const shownAvatar = (publicUrl: string | undefined, stored: string | null): string | null =>
  publicUrl !== undefined && stored?.startsWith(AVATAR_PATH) ? `${publicUrl}${stored}` : stored
