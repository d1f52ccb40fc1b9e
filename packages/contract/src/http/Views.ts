import { Language } from "@talab/core"
import * as Schema from "effect/Schema"

/** The user as the API shows it. */
export const UserView = Schema.Struct({
  id: Schema.UUID,
  phone_number: Schema.String,
  name: Schema.NullOr(Schema.String),
  avatar_url: Schema.NullOr(Schema.String),
  language: Language,
  is_admin: Schema.Boolean,
  created_at: Schema.Date
})

export const SellerProfileSummary = Schema.Struct({
  id: Schema.UUID,
  status: Schema.Literal("pending", "approved", "rejected", "suspended"),
  business_name: Schema.String,
  location_district: Schema.String,
  rating_avg: Schema.Number,
  rating_count: Schema.Int
})
