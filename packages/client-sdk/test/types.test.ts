import { describe, expect, it } from "vitest"
import { createTalabClient, type ErrorCode, type RequestBody, type ResponseData, TalabApiError } from "../src/index.js"

/*
 * Compile-time checks: `tsc -p tsconfig.json` fails if a `@ts-expect-error` below stops being an error,
 * that is if the client stopped rejecting a wrong call. The calls are never sent.
 */
const talab = createTalabClient({ baseUrl: "http://127.0.0.1:9" })
const never = false

describe("types", () => {
  it("reject wrong paths, missing parameters and wrong bodies; type the answers", () => {
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
      void talab.GET("/deals/{id}", { params: { path: { id: "x" } } }).then(({ data }) => {
        const conversation: string = data.conversation_id
        // @ts-expect-error no such field on a deal
        void data.conversation
        return conversation
      })
      void talab
        .items("/requests")
        .next()
        .then(({ value }) => value?.budget_max satisfies number | undefined)
      const error = new TalabApiError({ code: "NOT_FOUND", status: 404, message: "" })
      // @ts-expect-error codes are a closed union
      void (error.code === "NOPE")
    }
    const code: ErrorCode = "DEAL_NOT_ACTIVE"
    const body: RequestBody<"/offers", "post"> = { request_id: "r", price: 10, availability: "now" }
    const status: ResponseData<"/deals/{id}/complete", "put">["status"] = "completed"
    expect([code, body.price, status]).toEqual(["DEAL_NOT_ACTIVE", 10, "completed"])
  })
})
