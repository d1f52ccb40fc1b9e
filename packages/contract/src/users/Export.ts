import { AlertRule, Conversation, DeviceToken, Message, Rating, Report, Session, snakeCaseKeys } from "@talab/core"
import * as Schema from "effect/Schema"
import { DealView, entityView, OfferView, RequestView, SellerProfileView, shownAs, UserView } from "../http/Views.js"

const SessionRecord = Schema.Struct({
  ...entityView(Session.fields).pick("id", "createdAt", "expiresAt", "revokedAt", "lastUsedAt", "device").fields,
  ipPrefix: shownAs("approximate_ip", Session.fields.ipPrefix)
})

const DeviceTokenRecord = entityView(DeviceToken.fields)
  .pick("id", "platform", "pushToken", "createdAt")
  .annotations({ description: "A push token, shown masked: its first and last 4 characters." })

const RatingRecord = entityView(Rating.fields)

/** A report the caller made, without what administrators wrote about it. */
const ReportRecord = entityView(Report.fields).pick(
  "id",
  "reportedUserId",
  "dealId",
  "reason",
  "description",
  "status",
  "createdAt"
)

/**
 * Everything the service holds about the caller (GET /users/me/export): their profile and seller profile, sessions
 * and push tokens (masked), requests, offers, deals, the conversations they are in and the messages they wrote,
 * the ratings they gave and received, the reports they made, their alert rules and the URLs of their images.
 */
export const AccountExport = snakeCaseKeys({
  exportedAt: Schema.Date,
  profile: UserView,
  sellerProfile: Schema.NullOr(SellerProfileView),
  sessions: Schema.Array(SessionRecord),
  deviceTokens: Schema.Array(DeviceTokenRecord),
  requests: Schema.Array(RequestView),
  offers: Schema.Array(OfferView),
  deals: Schema.Array(DealView),
  conversations: Schema.Array(entityView(Conversation.fields)),
  messages: Schema.Array(entityView(Message.fields)),
  ratingsGiven: Schema.Array(RatingRecord),
  ratingsReceived: Schema.Array(RatingRecord),
  reportsMade: Schema.Array(ReportRecord),
  alertRules: Schema.Array(entityView(AlertRule.fields)),
  images: Schema.Array(Schema.String).annotations({
    description: "The URLs of the caller's images besides the avatar (in `profile`)."
  })
})
export type AccountExport = typeof AccountExport.Type
