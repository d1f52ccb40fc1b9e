/*
 * Photos: picked with a file input, uploaded one by one (`uploadImage`: POST /images, the server re-encodes them
 * and strips their metadata), then attached by id to what is posted. The URLs the API returns carry their own
 * signature and expiry, so an <img> loads them with no token.
 */
import { h } from "./dom.js"
import { talab } from "./talab.js"

/** A photo as every view shows it. */
interface Photo {
  readonly id: string
  readonly url: string
  readonly thumbnail_url: string
  readonly width: number
  readonly height: number
}

/** Uploads the files picked in a file input, in order, and returns their ids (none picked: none). */
export const uploadPicked = async (input: HTMLInputElement): Promise<Array<string>> => {
  const ids: Array<string> = []
  for (const file of input.files ?? []) ids.push((await talab.uploadImage(file, file.name)).id)
  return ids
}

/** Thumbnails, each linking to its full image; nothing when there are none. */
export const gallery = (photos: ReadonlyArray<Photo>, label: string) =>
  photos.length === 0
    ? null
    : h(
        "ul",
        { class: "photos", "aria-label": label },
        ...photos.map((photo, index) =>
          h(
            "li",
            {},
            h(
              "a",
              { href: photo.url, target: "_blank", rel: "noopener" },
              h("img", {
                src: photo.thumbnail_url,
                alt: `${label} ${index + 1}`,
                "data-photo-id": photo.id,
                width: String(Math.min(photo.width, 120)),
                loading: "lazy"
              })
            )
          )
        )
      )
