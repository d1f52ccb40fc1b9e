import { describe, expectTypeOf, it } from "vitest"
import {
  createTalabClient,
  type ErrorCode,
  type RequestBody,
  type ResponseBody,
  type ResponseData,
  TalabApiError
} from "../src/index.js"

/*
 * Type tests: they pass or fail when `tsc -p tsconfig.json` (the package's typecheck) runs, not when vitest does.
 * A `@ts-expect-error` line that stops being an error fails the typecheck: the client stopped rejecting a wrong call.
 * The calls are never sent.
 */
const talab = createTalabClient({ baseUrl: "http://127.0.0.1:9" })
const never = false

describe("types", () => {
  it("reject wrong paths, missing parameters and wrong bodies", () => {
    if (never) {
      // @ts-expect-error an endpoint the API does not have
      void talab.GET("/requestz")
      // @ts-expect-error the path parameter is required
      void talab.GET("/deals/{id}")
      // @ts-expect-error category is one of "phone" | "accessory"
      void talab.POST("/requests", { body: { category: "car", budget_min: 1, budget_max: 2, location_district: "x" } })
      // @ts-expect-error GET /users/me is not paginated
      void talab.pages("/users/me")
      // @ts-expect-error page and per_page are integers (documented as such), not strings
      void talab.GET("/requests", { params: { query: { page: "2" } } })
      void talab.GET("/conversations/{id}/messages", { params: { path: { id: "x" }, query: { limit: 50 } } })
      void talab.GET("/requests", { params: { query: { q: "آيفون ١٣ برو", sort: "budget_desc", fits_price: 2500.5 } } })
      // @ts-expect-error sort is one of the four orders
      void talab.GET("/requests", { params: { query: { sort: "oldest" } } })
      // @ts-expect-error fits_price is a number
      void talab.GET("/requests", { params: { query: { fits_price: "2500" } } })
      void talab.POST("/seller-profiles/me/alerts", {
        body: { categories: ["phone"], cities: ["Riyadh"], keywords: ["ايفون", "Pro"] }
      })
    }
  })

  it("type the answers by the document", () => {
    expectTypeOf(talab.GET<"/deals/{id}">)
      .returns.resolves.toHaveProperty("data")
      .toHaveProperty("conversation_id")
      .toEqualTypeOf<string>()
    expectTypeOf<ResponseData<"/deals/{id}", "get">>().not.toHaveProperty("conversation")
    expectTypeOf<ResponseData<"/deals/{id}/complete", "put">["status"]>().toEqualTypeOf<
      "accepted" | "completed" | "cancelled"
    >()
    expectTypeOf<ResponseBody<"/users/me", "get">["success"]>().toEqualTypeOf<true>()
  })

  it("type the bodies a call takes", () => {
    expectTypeOf<{ request_id: string; price: number; availability: string }>().toExtend<
      RequestBody<"/offers", "post">
    >()
    expectTypeOf<{ request_id: string; price: string; availability: string }>().not.toExtend<
      RequestBody<"/offers", "post">
    >()
    expectTypeOf<RequestBody<"/requests", "post">["category"]>().toEqualTypeOf<"phone" | "accessory">()
  })

  it("close the union of error codes", () => {
    expectTypeOf<"DEAL_NOT_ACTIVE">().toExtend<ErrorCode>()
    expectTypeOf<"NOPE">().not.toExtend<ErrorCode>()
    expectTypeOf<TalabApiError["code"]>().toEqualTypeOf<ErrorCode>()
  })
})
