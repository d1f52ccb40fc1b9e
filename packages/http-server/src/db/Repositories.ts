import * as Layer from "effect/Layer"
import { SqlOtpRepo } from "../auth/SqlOtpRepo.js"
import { SqlSessionRepo } from "../auth/SqlSessionRepo.js"
import { SqlConversationRepo } from "../chat/SqlConversationRepo.js"
import { SqlMessageRepo } from "../chat/SqlMessageRepo.js"
import { SqlDealRepo } from "../deals/SqlDealRepo.js"
import { SqlImageRepo } from "../images/SqlImageRepo.js"
import { SqlEventOutbox } from "../notifications/SqlEventOutbox.js"
import { SqlOfferRepo } from "../offers/SqlOfferRepo.js"
import { SqlRatingRepo } from "../ratings/SqlRatingRepo.js"
import { SqlReportRepo } from "../reports/SqlReportRepo.js"
import { SqlRequestRepo } from "../requests/SqlRequestRepo.js"
import { SqlSellerProfileRepo } from "../sellers/SqlSellerProfileRepo.js"
import { SqlDeviceTokenRepo } from "../users/SqlDeviceTokenRepo.js"
import { SqlUserRepo } from "../users/SqlUserRepo.js"
import { SqlTransactor } from "./SqlTransactor.js"

export * from "../auth/SqlOtpRepo.js"
export * from "../auth/SqlSessionRepo.js"
export * from "../chat/SqlConversationRepo.js"
export * from "../chat/SqlMessageRepo.js"
export * from "../deals/SqlDealRepo.js"
export * from "../images/SqlImageRepo.js"
export * from "../notifications/SqlEventOutbox.js"
export * from "../offers/SqlOfferRepo.js"
export * from "../ratings/SqlRatingRepo.js"
export * from "../reports/SqlReportRepo.js"
export * from "../requests/SqlRequestRepo.js"
export * from "../sellers/SqlSellerProfileRepo.js"
export * from "../users/SqlDeviceTokenRepo.js"
export * from "../users/SqlUserRepo.js"
export * from "./SqlTransactor.js"

/** Every port of `@talab/core`'s Repositories over SQL; needs a `SqlClient`. */
export const SqlRepositoriesLayer = Layer.mergeAll(
  SqlTransactor,
  SqlUserRepo,
  SqlSessionRepo,
  SqlOtpRepo,
  SqlDeviceTokenRepo,
  SqlSellerProfileRepo,
  SqlRequestRepo,
  SqlOfferRepo,
  SqlDealRepo,
  SqlRatingRepo,
  SqlReportRepo,
  SqlConversationRepo,
  SqlMessageRepo,
  SqlImageRepo,
  SqlEventOutbox
)
