import { Schema } from "effect"

const uuid = Schema.UUID

/** Identifier of a user. */
export const UserId = uuid.pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type
/** Identifier of a sign-in session (carried by its access and refresh tokens). */
export const SessionId = uuid.pipe(Schema.brand("SessionId"))
export type SessionId = typeof SessionId.Type
/** Identifier of a buy request. */
export const RequestId = uuid.pipe(Schema.brand("RequestId"))
export type RequestId = typeof RequestId.Type
/** Identifier of an offer. */
export const OfferId = uuid.pipe(Schema.brand("OfferId"))
export type OfferId = typeof OfferId.Type
/** Identifier of a deal. */
export const DealId = uuid.pipe(Schema.brand("DealId"))
export type DealId = typeof DealId.Type
/** Identifier of a conversation. */
export const ConversationId = uuid.pipe(Schema.brand("ConversationId"))
export type ConversationId = typeof ConversationId.Type
/** Identifier of a chat message. */
export const MessageId = uuid.pipe(Schema.brand("MessageId"))
export type MessageId = typeof MessageId.Type
/** Identifier of a rating. */
export const RatingId = uuid.pipe(Schema.brand("RatingId"))
export type RatingId = typeof RatingId.Type
/** Identifier of a report. */
export const ReportId = uuid.pipe(Schema.brand("ReportId"))
export type ReportId = typeof ReportId.Type
/** Identifier of a seller profile. */
export const SellerProfileId = uuid.pipe(Schema.brand("SellerProfileId"))
export type SellerProfileId = typeof SellerProfileId.Type
/** Identifier of a registered push device token. */
export const DeviceTokenId = uuid.pipe(Schema.brand("DeviceTokenId"))
export type DeviceTokenId = typeof DeviceTokenId.Type
/** Identifier of a queued notification or outbox event. */
export const EventId = uuid.pipe(Schema.brand("EventId"))
export type EventId = typeof EventId.Type
