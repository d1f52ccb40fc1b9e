import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Category, RequestInput, RequestStatus, SearchSort, SearchText, snakeCaseKeys } from "@talab/core"
import * as Schema from "effect/Schema"
import { ErrorCases, RequestExample } from "../docs/Annotations.js"
import {
  BusinessRuleResponse,
  ForbiddenResponse,
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  NotFoundResponse,
  Ok
} from "../http/Envelope.js"
import { MoneyParam, OneOf, PageParams, Pagination, PayloadOf, Text } from "../http/Fields.js"
import { IdPath } from "../http/Paths.js"
import { failureAt, fieldProblem } from "../http/Problems.js"
import { ApiRateLimit, Authentication, BodyCheck } from "../http/Security.js"

import { Party, RequestView } from "../http/Views.js"
import { Photos } from "../images/View.js"

/** The detail view: the buyer as an object instead of buyer_id. */
export const RequestDetail = Schema.Struct({
  ...RequestView.omit("buyerId").fields,
  buyer: Party,
  photos: Photos
})

/** A request as its buyer posted it, with its photos. */
export const CreatedRequest = Schema.Struct({ ...RequestView.fields, photos: Photos })

/** An item of the request lists. */
export const RequestListItem = Schema.Struct({
  ...RequestView.pick(
    "id",
    "category",
    "productBrand",
    "productModel",
    "conditionPref",
    "budgetMin",
    "budgetMax",
    "locationDistrict",
    "status",
    "offerCount",
    "createdAt",
    "expiresAt"
  ).fields,
  ...snakeCaseKeys({
    thumbnailUrl: Schema.NullOr(Schema.String).annotations({
      description: "The signed thumbnail URL of the request's first photo; null without photos"
    })
  }).fields
})

/** A page of buy requests, newest first, as GET /requests and GET /requests/my answer it. */
export const RequestList = Schema.Struct({ requests: Schema.Array(RequestListItem), pagination: Pagination })

const NewRequest = PayloadOf(RequestInput).pipe(
  Schema.filter(
    (body, _, self) => body.budgetMax >= body.budgetMin || failureAt("budget_max", body, self),
    fieldProblem("budget_max_below_min")
  )
)

const StatusFilter = Schema.optional(OneOf(...RequestStatus.literals))

/** Buy requests: post, browse, read, close. */
export class RequestsApi extends HttpApiGroup.make("requests")
  .annotate(OpenApi.Title, "Buy requests")
  .annotate(
    OpenApi.Description,
    "A buyer posts what they want to buy (category, product, condition, budget, district); sellers browse active requests and answer with offers."
  )
  .add(
    HttpApiEndpoint.post("create", "/requests")
      .setPayload(NewRequest)
      .addSuccess(Ok(CreatedRequest), { status: 201 })
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
      .annotate(OpenApi.Summary, "Post a buy request")
      .annotate(
        OpenApi.Description,
        "Any signed-in user. Creates an `active` request the caller owns. `budget_max` must be at least `budget_min`; `condition_pref` defaults to `any`."
      )
      .annotate(RequestExample, {
        category: "phone",
        product_brand: "Apple",
        product_model: "iPhone 15 Pro",
        condition_pref: "used",
        budget_min: 2500,
        budget_max: 3500,
        location_district: "Al Rawdah",
        location_city: "Riyadh",
        notes: "256 GB, any colour"
      })
  )
  .add(
    HttpApiEndpoint.get("list", "/requests")
      .setUrlParams(
        Schema.Struct({
          category: Schema.optional(OneOf(...Category.literals)),
          location_city: Schema.optional(Text(1, 100)),
          status: StatusFilter,
          q: Schema.optional(
            SearchText.annotations({
              description:
                "Free text, 1 to 100 characters, matched against the brand, model, notes, district and city: every word must match a word of the request that equals it, starts with it (3 letters or more) or is one typo from it (5 letters or more), after normalisation (case, Arabic diacritics, hamza forms, ى/ي, ة/ه, Arabic-Indic digits) and with brand and model words in Arabic letters matching their Latin spelling (آيفون is iPhone)."
            })
          ),
          sort: Schema.optional(
            OneOf(...SearchSort.literals).annotations({
              description:
                "`relevance` (the default with `q`: more words matched exactly first, then without a typo, then in the brand and model, then newest), `newest` (the default without `q`), `budget_desc` (highest `budget_max` first), `budget_asc` (lowest `budget_min` first)"
            })
          ),
          fits_price: Schema.optional(
            MoneyParam.annotations({ description: "Only requests whose budget range contains this price" })
          ),
          ...PageParams
        })
      )
      .addSuccess(Ok(RequestList))
      .annotate(OpenApi.Summary, "Browse and search buy requests")
      .annotate(
        OpenApi.Description,
        "Any signed-in user. Requests newest first, `active` ones unless `status` says otherwise, filtered by `category`, `location_city` and `fits_price`, and found by `q` in Arabic or Latin spelling (see `q` and `sort`). `pagination.total` counts every request the filters and `q` find."
      )
  )
  .add(
    HttpApiEndpoint.get("listMine", "/requests/my")
      .setUrlParams(Schema.Struct({ status: StatusFilter, ...PageParams }))
      .addSuccess(Ok(RequestList))
      .annotate(OpenApi.Summary, "List my buy requests")
      .annotate(
        OpenApi.Description,
        "The signed-in user's own requests, newest first, in every state unless `status` filters."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/requests/:id")
      .setPath(IdPath)
      .addSuccess(Ok(RequestDetail))
      .addError(NotFoundResponse)
      .annotate(OpenApi.Summary, "Get a buy request")
      .annotate(
        OpenApi.Description,
        "Any signed-in user. The request with its buyer's id and name. Phone numbers, e-mail addresses, links and handles in its `notes` read `***` for everyone but its buyer and the seller whose offer on it was accepted."
      )
      .annotate(ErrorCases, { NOT_FOUND: "no request has this id" })
  )
  .add(
    HttpApiEndpoint.put("close", "/requests/:id/close")
      .setPath(IdPath)
      .addSuccess(
        Ok(
          Schema.Struct({
            ...RequestView.pick("id", "status").fields,
            ...snakeCaseKeys({ closedAt: Schema.Date }).fields
          })
        )
      )
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .annotate(OpenApi.Summary, "Close my buy request")
      .annotate(
        OpenApi.Description,
        "The request's owner. The request becomes `closed` and its pending offers `rejected`."
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no request has this id",
        FORBIDDEN: "the caller does not own the request",
        REQUEST_ALREADY_CLOSED: "the request is already closed",
        REQUEST_EXPIRED: "the request has expired"
      })
  )
  .add(
    HttpApiEndpoint.put("extend", "/requests/:id/extend")
      .setPath(IdPath)
      .addSuccess(
        Ok(
          Schema.Struct({
            ...RequestView.pick("id", "status").fields,
            ...snakeCaseKeys({ expiresAt: Schema.Date, extendedAt: Schema.Date }).fields
          })
        )
      )
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .annotate(OpenApi.Summary, "Extend my buy request")
      .annotate(
        OpenApi.Description,
        "The request's owner, once, while it is active: `expires_at` moves REQUEST_TTL_DAYS (30 by default) further and the reminder push is owed again a day before the new expiry."
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no request has this id",
        FORBIDDEN: "the caller does not own the request",
        REQUEST_ALREADY_CLOSED: "the request is closed",
        REQUEST_EXPIRED: "the request has expired (past `expires_at`, even before the expiry job ran)",
        REQUEST_ALREADY_EXTENDED: "the request was extended once already"
      })
  )
  .middleware(BodyCheck)
  .middleware(ApiRateLimit)
  .middleware(Authentication) {}
