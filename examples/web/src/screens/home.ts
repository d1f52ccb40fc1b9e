/** The buyer's home: their requests (each opens its offers), a form to post one, and the request search. */
import { $, h, value } from "../dom.js"
import { clearFieldErrors, report } from "../errors.js"
import { money, number, t, type WordKey } from "../i18n.js"
import { uploadPicked } from "../photos.js"
import { talab } from "../talab.js"

const title = (request: { product_brand: string | null; product_model: string | null }) =>
  [request.product_brand, request.product_model].filter(Boolean).join(" ")

/** Draws "My requests" from GET /requests/my, newest first. */
export const showHome = async () => {
  const { data } = await talab.GET("/requests/my")
  const list = $("my-requests")
  list.replaceChildren(
    ...data.requests.map((request) =>
      h(
        "li",
        { "data-request-id": request.id },
        request.thumbnail_url !== null &&
          h("img", { class: "thumbnail", src: request.thumbnail_url, alt: t("requestPhotos"), width: "48" }),
        h("a", { href: `#request/${request.id}` }, title(request)),
        ` · ${money(request.budget_min)} – ${money(request.budget_max)} · ${request.location_district} · `,
        h("span", { class: "offer-count" }, t("offerCount", { count: number(request.offer_count) })),
        ` · ${t(`request_${request.status}` satisfies WordKey)}`
      )
    )
  )
  if (data.requests.length === 0) list.append(h("li", {}, t("noRequests")))
}

/** An optional text field: empty is "none" (null), anything else is sent as typed, for the server to judge. */
const optional = (id: string) => (value(id) === "" ? null : value(id))
/** A number field: empty is left out, so the server names it as required. */
const amount = (id: string) => (value(id) === "" ? undefined : Number(value(id)))

export const setUpHome = () => {
  const requestForm = $<HTMLFormElement>("request-form")
  requestForm.addEventListener("submit", async (event) => {
    event.preventDefault()
    clearFieldErrors(requestForm)
    try {
      // Each photo is uploaded first; the request then names them, and they are attached in its transaction.
      const photoIds = await uploadPicked($<HTMLInputElement>("request-photos"))
      const { data } = await talab.POST("/requests", {
        body: {
          photo_ids: photoIds,
          category: "phone",
          product_brand: optional("brand"),
          product_model: optional("model"),
          // Left for the server to check: its `details` name the fields, in the user's language.
          budget_min: amount("budget-min") as number,
          budget_max: amount("budget-max") as number,
          location_district: $<HTMLInputElement>("district").value
        }
      })
      $<HTMLInputElement>("request-photos").value = ""
      $("status").textContent = t("requestPosted", { title: title(data) })
      location.hash = `#request/${data.id}`
    } catch (error) {
      await report(error, requestForm)
    }
  })

  // GET /requests with what the search box says: the words in Arabic or Latin letters, a price, an order.
  const searchForm = $<HTMLFormElement>("search-form")
  searchForm.addEventListener("submit", async (event) => {
    event.preventDefault()
    clearFieldErrors(searchForm)
    try {
      const q = value("q")
      const price = amount("fits-price")
      const sort = $<HTMLSelectElement>("sort").value as "newest" | "budget_desc" | "budget_asc" | ""
      const { data } = await talab.GET("/requests", {
        params: {
          query: {
            ...(q === "" ? {} : { q }),
            ...(price === undefined ? {} : { fits_price: price }),
            ...(sort === "" ? {} : { sort })
          }
        }
      })
      $("search-total").textContent = t("found", { total: number(data.pagination.total) })
      $("search-results").replaceChildren(
        ...data.requests.map((request) =>
          h(
            "li",
            { "data-request-id": request.id },
            `${title(request)}, ${money(request.budget_min)} – ${money(request.budget_max)}, ${request.location_district}`
          )
        )
      )
    } catch (error) {
      await report(error, searchForm)
    }
  })
}
