import { Layer } from "effect"
import { SqlConversationRepo } from "./SqlConversationRepo.js"
import { SqlDealRepo } from "./SqlDealRepo.js"
import { SqlDeviceTokenRepo } from "./SqlDeviceTokenRepo.js"
import { SqlEventOutbox } from "./SqlEventOutbox.js"
import { SqlMessageRepo } from "./SqlMessageRepo.js"
import { SqlOfferRepo } from "./SqlOfferRepo.js"
import { SqlOtpRepo } from "./SqlOtpRepo.js"
import { SqlRatingRepo } from "./SqlRatingRepo.js"
import { SqlReportRepo } from "./SqlReportRepo.js"
import { SqlRequestRepo } from "./SqlRequestRepo.js"
import { SqlSellerProfileRepo } from "./SqlSellerProfileRepo.js"
import { SqlSessionRepo } from "./SqlSessionRepo.js"
import { SqlTransactor } from "./SqlTransactor.js"
import { SqlUserRepo } from "./SqlUserRepo.js"

export * from "./SqlConversationRepo.js"
export * from "./SqlDealRepo.js"
export * from "./SqlDeviceTokenRepo.js"
export * from "./SqlEventOutbox.js"
export * from "./SqlMessageRepo.js"
export * from "./SqlOfferRepo.js"
export * from "./SqlOtpRepo.js"
export * from "./SqlRatingRepo.js"
export * from "./SqlReportRepo.js"
export * from "./SqlRequestRepo.js"
export * from "./SqlSellerProfileRepo.js"
export * from "./SqlSessionRepo.js"
export * from "./SqlTransactor.js"
export * from "./SqlUserRepo.js"

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
  SqlEventOutbox
)
