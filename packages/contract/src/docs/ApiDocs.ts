/*
 * The prose of the API reference: what each tag and operation is for, who may call it, what it changes and
 * when it answers which error. Kept apart from the contract (the Api.ts files) so the schemas stay readable;
 * OpenApiDocument.ts joins the two, and a test fails when an operation has no entry here.
 */

/** A tag as the reference shows it: a readable name and what its operations are about. */
export interface TagDocs {
  readonly name: string
  readonly description: string
}

/** The tags of the contract (the group identifiers), in reference order. */
export const tagDocs: Readonly<Record<string, TagDocs>> = {
  auth: {
    name: "Sign-in",
    description:
      "Phone sign-in with a one-time code sent by SMS, token refresh, sign-out, and the sessions a user can see and end. The access token (JWT, 24 hours) goes in `Authorization: Bearer …`; the refresh token (30 days) is exchanged at `/auth/refresh`."
  },
  users: {
    name: "Profile and devices",
    description: "The signed-in user's own profile, avatar and the device tokens that receive push notifications."
  },
  sellerProfiles: {
    name: "Seller profiles",
    description:
      "A user becomes a seller by applying with a business profile; an admin approves it. Approved profiles are public."
  },
  adminSellerProfiles: {
    name: "Admin: seller applications",
    description: "Admins review seller applications. Every operation answers 403 to a non-admin before any other check."
  },
  sellerAlerts: {
    name: "Seller alerts",
    description:
      "An approved seller's alert rules: a new request matching one (category, city, budget meeting the price range) sends them one `request_match` push and an `event` frame on their WebSocket user channel. Quiet hours hold the pushes and send one `request_match_summary` when they end. Any other caller gets 403 SELLER_NOT_APPROVED."
  },
  requests: {
    name: "Buy requests",
    description:
      "A buyer posts what they want to buy (category, product, condition, budget, district); sellers browse active requests and answer with offers."
  },
  offers: {
    name: "Offers",
    description:
      "Approved sellers offer on active requests; the buyer accepts one (which closes the request and opens a deal) and the seller may withdraw a pending one."
  },
  deals: {
    name: "Deals",
    description: "An accepted offer becomes a deal between buyer and seller, completed or cancelled by either party."
  },
  ratings: {
    name: "Ratings",
    description: "After a completed deal the buyer rates the seller once, from 1 to 5."
  },
  reports: {
    name: "Reports",
    description: "Any user can report another for a fake offer, a no-show, rudeness or a scam."
  },
  adminReports: {
    name: "Admin: reports",
    description:
      "Admins review reports: dismiss, warn or suspend the reported seller. Every operation answers 403 to a non-admin before any other check."
  },
  chat: {
    name: "Chat",
    description:
      "Every offer opens a conversation between the buyer and the seller. Messages can be read and sent here or live over the WebSocket at `/ws` (see `/api/v1/asyncapi.json`)."
  }
}

/** One operation: its summary, its rules, when it answers which code, and example bodies. */
export interface OperationDocs {
  readonly summary: string
  readonly description: string
  /** Error code → when it is answered; codes the operation can answer beyond the common ones. */
  readonly errors?: Readonly<Record<string, string>>
  /** Fields of the request example that differ from the generated one. */
  readonly request?: Readonly<Record<string, unknown>>
}

const approvedSellerOnly = "Approved sellers only; anybody else gets 403 `SELLER_NOT_APPROVED`."
const adminOnly = "Admins only (phone numbers in `ADMIN_PHONE_NUMBERS`)."
const partiesOnly = "Only the deal's two parties (buyer and seller) may call it."

/** Every operation of the contract by operation id. */
export const operationDocs: Readonly<Record<string, OperationDocs>> = {
  "auth.requestOtp": {
    summary: "Send a sign-in code by SMS",
    description:
      "Anyone may call it. Sends a 6-digit code, valid for 10 minutes, to the phone number (international format, with its `+country` code); a new code replaces the previous one. At most 3 codes per number every 10 minutes.",
    errors: { RATE_LIMITED: "more than 3 codes for this number in 10 minutes, or too many auth calls from this IP" },
    request: { phone_number: "+966501234567" }
  },
  "auth.verifyOtp": {
    summary: "Sign in with the code",
    description:
      "Anyone may call it. Checks the code sent to the phone number; the first sign-in creates the user. Answers the user and a new session's tokens. A code allows 3 attempts. The optional `device` (`platform`: ios, android or web; `name`: one line, 1-100 characters) names the session in `GET /auth/sessions`.",
    errors: {
      INVALID_OTP: "the code is wrong",
      OTP_EXPIRED: "the code is older than 10 minutes, or none was sent",
      OTP_ATTEMPTS_EXCEEDED: "3 wrong attempts: request a new code"
    },
    request: { phone_number: "+966501234567", otp_code: "123456", device: { platform: "ios", name: "Sara's iPhone" } }
  },
  "auth.refresh": {
    summary: "Get a new access token",
    description:
      "Anyone holding a refresh token may call it. Answers a new access token; the refresh token stays valid until it expires or the session signs out.",
    errors: { INVALID_REFRESH_TOKEN: "the refresh token is unknown, expired, or its session signed out" }
  },
  "auth.logout": {
    summary: "Sign out",
    description:
      "The signed-in user. Ends the session of the access token (its refresh token stops working and its WebSockets close with 4401). With `device_token`, that device stops receiving pushes. Counts toward the auth rate limit.",
    request: { device_token: "fcm-device-token-123" }
  },
  "auth.listSessions": {
    summary: "List my sessions",
    description:
      "The signed-in user. Answers their live sessions (not ended, not expired), newest first: when each signed in and was last used (refreshed at most once a minute, and at every token refresh), the device named at sign-in (null when none was), the network it signed in from (`approximate_ip`: an IPv4 /24 or an IPv6 /48, never the address), and `current: true` on the caller's own. Counts toward the auth rate limit."
  },
  "auth.endSession": {
    summary: "End one of my sessions",
    description:
      "The signed-in user. Ends one of their live sessions (the current one too, like logout): its access and refresh tokens answer 401 at once on every instance, its WebSockets close with 4401, and the push tokens registered under it are removed. Counts toward the auth rate limit.",
    errors: { NOT_FOUND: "no live session of the caller has this id (another user's, ended, expired or unknown)" }
  },
  "auth.endOtherSessions": {
    summary: "End all my other sessions",
    description:
      "The signed-in user. Ends every live session of theirs except the caller's own, as `DELETE /auth/sessions/{id}` ends one; answers how many it ended (`ended`, 0 when there were none). Counts toward the auth rate limit."
  },
  "users.getMe": {
    summary: "Get my profile",
    description: "The signed-in user. Answers their profile, with their seller profile when they have one."
  },
  "users.updateMe": {
    summary: "Update my profile",
    description: "The signed-in user. Changes their name and language (`ar` or `en`, the language of their pushes).",
    request: { name: "Sara", language: "en" }
  },
  "users.uploadAvatar": {
    summary: "Upload my avatar",
    description:
      "The signed-in user. A JPEG, PNG or WebP image (told by its content) of at most 5 MiB in the multipart field `avatar`; it is re-encoded without its metadata and replaces the previous avatar.",
    errors: {
      PAYLOAD_TOO_LARGE: "the image is over 5 MiB",
      UNSUPPORTED_MEDIA_TYPE: "the file is not a JPEG, PNG or WebP image"
    }
  },
  "users.registerDevice": {
    summary: "Register a device for push notifications",
    description:
      "The signed-in user. Stores the device's FCM or APNs token; a token registered before moves to this user.",
    request: { push_token: "fcm-device-token-123", platform: "android" }
  },
  "sellerProfiles.apply": {
    summary: "Apply to become a seller",
    description:
      "The signed-in user without a seller profile. Creates their profile as `pending`; an admin approves it before they can offer.",
    errors: { SELLER_PROFILE_EXISTS: "the user already has a seller profile, whatever its state" },
    request: {
      business_name: "Rawdah Mobiles",
      location_district: "Al Rawdah",
      location_city: "Riyadh",
      bio: "New and used phones since 2015."
    }
  },
  "sellerProfiles.getPublic": {
    summary: "Get a seller's public profile",
    description: "Anyone, without a token. Approved profiles only, with their rating.",
    errors: { NOT_FOUND: "no profile has this id, or it is not approved" }
  },
  "sellerAlerts.listRules": {
    summary: "List my alert rules",
    description: `${approvedSellerOnly} The caller's alert rules (at most 20), newest first, in \`data.alerts\`.`
  },
  "sellerAlerts.createRule": {
    summary: "Add an alert rule",
    description: `${approvedSellerOnly} A request matches when its category is one of \`categories\`, its city one of \`cities\` (compared trimmed and case-insensitively) and its budget range meets [\`price_min\`, \`price_max\`] (either may be left out). Only requests created afterwards are matched; a request without a city matches no rule.`,
    errors: { ALERT_RULE_LIMIT_REACHED: "the seller already has 20 rules; delete one first" },
    request: { categories: ["phone"], cities: ["Riyadh", "Jeddah"], price_min: 1000, price_max: 4000 }
  },
  "sellerAlerts.deleteRule": {
    summary: "Delete an alert rule",
    description: `${approvedSellerOnly} Deletes one of the caller's rules.`,
    errors: { NOT_FOUND: "no rule of the caller has this id (another seller's rule included)" }
  },
  "sellerAlerts.getSettings": {
    summary: "Get my quiet hours",
    description: `${approvedSellerOnly} The caller's quiet hours; all three fields null when there are none (the default).`
  },
  "sellerAlerts.putSettings": {
    summary: "Set my quiet hours",
    description: `${approvedSellerOnly} From \`quiet_from\` to \`quiet_to\` (HH:MM, may wrap past midnight) in \`time_zone\` (IANA), alert pushes are held and sent as one \`request_match_summary\` push when the quiet hours end. All three null removes them.`,
    request: { quiet_from: "22:00", quiet_to: "07:00", time_zone: "Asia/Riyadh" }
  },
  "adminSellerProfiles.listPending": {
    summary: "List pending seller applications",
    description: `${adminOnly} The applications waiting for review, newest first, a page at a time.`
  },
  "adminSellerProfiles.approve": {
    summary: "Approve a seller application",
    description: `${adminOnly} The profile becomes \`approved\`: its user can make offers.`,
    errors: {
      NOT_FOUND: "no profile has this id",
      SELLER_PROFILE_NOT_PENDING: "the profile is not pending"
    }
  },
  "adminSellerProfiles.reject": {
    summary: "Reject a seller application",
    description: `${adminOnly} The profile becomes \`rejected\`.`,
    errors: {
      NOT_FOUND: "no profile has this id",
      SELLER_PROFILE_NOT_PENDING: "the profile is not pending"
    }
  },
  "requests.create": {
    summary: "Post a buy request",
    description:
      "Any signed-in user. Creates an `active` request the caller owns. `budget_max` must be at least `budget_min`; `condition_pref` defaults to `any`.",
    request: {
      category: "phone",
      product_brand: "Apple",
      product_model: "iPhone 15 Pro",
      condition_pref: "used",
      budget_min: 2500,
      budget_max: 3500,
      location_district: "Al Rawdah",
      location_city: "Riyadh",
      notes: "256 GB, any colour"
    }
  },
  "requests.list": {
    summary: "Browse buy requests",
    description:
      "Any signed-in user. Requests newest first, `active` ones unless `status` says otherwise, filtered by `category` and `location_city`."
  },
  "requests.listMine": {
    summary: "List my buy requests",
    description: "The signed-in user's own requests, newest first, in every state unless `status` filters."
  },
  "requests.get": {
    summary: "Get a buy request",
    description: "Any signed-in user. The request with its buyer's id and name.",
    errors: { NOT_FOUND: "no request has this id" }
  },
  "requests.close": {
    summary: "Close my buy request",
    description: "The request's owner. The request becomes `closed` and its pending offers `rejected`.",
    errors: {
      NOT_FOUND: "no request has this id",
      FORBIDDEN: "the caller does not own the request",
      REQUEST_ALREADY_CLOSED: "the request is already closed",
      REQUEST_EXPIRED: "the request has expired"
    }
  },
  "requests.extend": {
    summary: "Extend my buy request",
    description:
      "The request's owner, once, while it is active: `expires_at` moves REQUEST_TTL_DAYS (30 by default) further and the reminder push is owed again a day before the new expiry.",
    errors: {
      NOT_FOUND: "no request has this id",
      FORBIDDEN: "the caller does not own the request",
      REQUEST_ALREADY_CLOSED: "the request is closed",
      REQUEST_EXPIRED: "the request has expired (past `expires_at`, even before the expiry job ran)",
      REQUEST_ALREADY_EXTENDED: "the request was extended once already"
    }
  },
  "offers.create": {
    summary: "Make an offer on a request",
    description:
      "An approved seller. Creates a `pending` offer on an active request of someone else, opens a conversation with the buyer and pushes `offer_created` to them. One pending offer per seller and request (an expired one does not count). A price outside the buyer's budget is accepted with a note in `message`. With `valid_until` (at least 1 hour, at most 30 days ahead) the offer becomes `expired` past it: it can no longer be accepted and leaves `offer_count`.",
    errors: {
      SELLER_NOT_APPROVED: "the caller has no approved seller profile (none, pending, rejected or suspended)",
      NOT_FOUND: "no request has this id",
      VALIDATION_ERROR: "a field is invalid, or `valid_until` is less than 1 hour or more than 30 days ahead",
      REQUEST_NOT_ACTIVE: "the request is closed or expired",
      DUPLICATE_PENDING_OFFER: "the seller already has a pending offer on this request",
      CANNOT_OFFER_ON_OWN_REQUEST: "the request is the seller's own"
    },
    request: {
      request_id: "3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f",
      price: 3200,
      availability: "Today after 6 pm, Al Rawdah",
      condition_notes: "Used 8 months, no scratches",
      warranty_notes: "6 months shop warranty"
    }
  },
  "offers.listForRequest": {
    summary: "List the offers on a request",
    description:
      "The request's owner sees every offer that is not withdrawn; a seller who offered on it sees only their own (withdrawn ones included).",
    errors: {
      NOT_FOUND: "no request has this id",
      FORBIDDEN: "the caller neither owns the request nor offered on it"
    }
  },
  "offers.listMine": {
    summary: "List my offers",
    description: "The signed-in seller's offers, newest first, in every state unless `status` filters."
  },
  "offers.accept": {
    summary: "Accept an offer",
    description:
      "The owner of the offer's request. Atomically: the offer becomes `accepted`, the request `closed`, the other pending offers `rejected`, and a deal is created; both parties get an `offer_accepted` push. Of simultaneous accepts on one request exactly one succeeds.",
    errors: {
      NOT_FOUND: "no offer has this id",
      FORBIDDEN: "the caller does not own the request",
      OFFER_ALREADY_ACCEPTED: "the offer was accepted already",
      OFFER_NOT_PENDING: "the offer is rejected or withdrawn",
      OFFER_EXPIRED: "the offer's `valid_until` has passed",
      REQUEST_NOT_ACTIVE: "the request is closed (another offer was accepted, or it was closed) or expired"
    }
  },
  "offers.withdraw": {
    summary: "Withdraw my offer",
    description:
      "The offer's seller. A pending offer becomes `withdrawn`, the request's `offer_count` drops by one, and the seller may offer again.",
    errors: {
      NOT_FOUND: "no offer has this id",
      FORBIDDEN: "the caller did not make the offer",
      OFFER_ALREADY_ACCEPTED: "the offer was accepted",
      OFFER_NOT_PENDING: "the offer is rejected, withdrawn or expired already"
    }
  },
  "deals.listMine": {
    summary: "List my deals",
    description:
      "The signed-in user's deals as buyer and as seller (`role` narrows), newest first, in every state unless `status` filters."
  },
  "deals.get": {
    summary: "Get a deal",
    description: `${partiesOnly} The deal with its offer, request and conversation.`,
    errors: { NOT_FOUND: "no deal has this id", FORBIDDEN: "the caller is not a party of the deal" }
  },
  "deals.complete": {
    summary: "Complete a deal",
    description: `${partiesOnly} An accepted deal becomes \`completed\`; the buyer gets a \`rating_prompt\` push.`,
    errors: {
      NOT_FOUND: "no deal has this id",
      FORBIDDEN: "the caller is not a party of the deal",
      DEAL_NOT_ACTIVE: "the deal is completed or cancelled already"
    }
  },
  "deals.cancel": {
    summary: "Cancel a deal",
    description: `${partiesOnly} An accepted deal becomes \`cancelled\`, with a reason; the request stays closed.`,
    errors: {
      NOT_FOUND: "no deal has this id",
      FORBIDDEN: "the caller is not a party of the deal",
      DEAL_NOT_ACTIVE: "the deal is completed or cancelled already"
    },
    request: { reason: "The buyer found the phone elsewhere", description: "Agreed by phone" }
  },
  "ratings.rate": {
    summary: "Rate the seller of a deal",
    description:
      "The deal's buyer, once the deal is completed, once per deal. Updates the seller's `rating_avg` and `rating_count`.",
    errors: {
      VALIDATION_ERROR:
        "a field is invalid, the rating is not an integer from 1 to 5, the deal is not completed, or it was rated already",
      NOT_FOUND: "no deal has this id",
      FORBIDDEN: "the caller is not the deal's buyer"
    },
    request: { deal_id: "3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f", rating: 5, review_text: "Exactly as described." }
  },
  "reports.file": {
    summary: "Report a user",
    description:
      "Any signed-in user, about someone else. With `deal_id`, the caller and the reported user must both be parties of that deal. Creates a `pending` report for the admins.",
    errors: {
      VALIDATION_ERROR: "a field is invalid, or the reported user is not a party of the deal given",
      NOT_FOUND: "the reported user or the deal does not exist",
      FORBIDDEN: "the caller is not a party of the deal given",
      CANNOT_REPORT_SELF: "the caller reported themself"
    },
    request: {
      reported_user_id: "3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f",
      reason: "no_show",
      description: "Did not come to the meeting point."
    }
  },
  "adminReports.list": {
    summary: "List reports",
    description: `${adminOnly} Reports newest first, in every state unless \`status\` filters, a page at a time.`
  },
  "adminReports.resolve": {
    summary: "Resolve a report",
    description: `${adminOnly} \`dismiss\` makes the report \`dismissed\`; \`warn\` and \`suspend_seller\` make it \`resolved\`, and \`suspend_seller\` also suspends the reported user's seller profile (its pending offers are rejected).`,
    errors: { NOT_FOUND: "no report has this id", REPORT_NOT_PENDING: "the report was resolved or dismissed already" },
    request: { action: "warn", notes: "Warned by phone" }
  },
  "chat.listMine": {
    summary: "List my conversations",
    description:
      "The signed-in user's conversations (one per offer), by last activity, with the last message (its text, contact details masked as in the history, `masked`, `seq` and time) and the unread count."
  },
  "chat.listMessages": {
    summary: "Read a conversation's messages",
    description:
      "The conversation's two parties. Up to `limit` messages older than `before` (default: now), newest first, with `has_more` (older ones exist). With `after_seq=N` instead: up to `limit` messages whose `seq` is greater than N, oldest first, with `has_more` (newer ones exist: ask again with the last `seq` returned); this is how a client resumes a conversation. `before` and `after_seq` together are a 400. Every message carries `seq`: 1, 2, 3, … within the conversation, with no gaps. Marks the other party's messages as read. Until the offer is accepted, phone numbers, e-mail addresses and links in the other party's messages read `***` (`masked: true`); your own never do.",
    errors: {
      NOT_FOUND: "no conversation has this id",
      FORBIDDEN: "the caller is not a party of the conversation"
    }
  },
  "chat.sendMessage": {
    summary: "Send a message",
    description:
      "The conversation's two parties. Stores the message and delivers it to every WebSocket subscribed to the conversation; a recipient who is not subscribed gets a `message` push.",
    errors: {
      NOT_FOUND: "no conversation has this id",
      FORBIDDEN: "the caller is not a party of the conversation"
    },
    request: { message_text: "Is it still available?" }
  },
  "chat.markRead": {
    summary: "Mark messages as read up to a seq",
    description:
      "The conversation's two parties. Marks the other party's messages with `seq` up to `up_to_seq` as read (those read already keep their `read_at`; the caller's own messages are never touched) and answers how many of the other party's messages the caller still has unread, the `unread_count` every device sees in the conversation list. A `seq` not stored yet marks what there is; 0 marks nothing.",
    errors: {
      NOT_FOUND: "no conversation has this id",
      FORBIDDEN: "the caller is not a party of the conversation"
    },
    request: { up_to_seq: 12 }
  }
}

/** When each code is answered, for operations that do not say more. */
export const commonErrorWhen: Readonly<Record<string, string>> = {
  VALIDATION_ERROR: "a parameter or a field of the body is invalid; `details` names each field",
  UNAUTHORIZED: "no access token, or an invalid or expired one",
  FORBIDDEN: "the caller may not do this",
  NOT_FOUND: "no resource has this id",
  PAYLOAD_TOO_LARGE: "the body is over 1 MiB",
  UNSUPPORTED_MEDIA_TYPE: "the body's media type is not accepted",
  RATE_LIMITED: "too many calls; wait `Retry-After` seconds",
  IDEMPOTENCY_KEY_IN_USE: "a call with the same `Idempotency-Key` is still running; retry after `Retry-After`",
  IDEMPOTENCY_KEY_REUSED: "the `Idempotency-Key` was used with another method, path or body",
  INTERNAL_ERROR: "an unexpected failure; nothing internal is shown",
  SERVICE_UNAVAILABLE: "a dependency (the database) is unreachable; try again after `Retry-After`"
}
