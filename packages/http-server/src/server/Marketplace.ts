import { Deals, Offers, Ratings, Reports, RequestSettings, Requests, SellerProfiles } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { SellerAlertsHttp } from "../alerts/Http.js"
import { SellerAlertsService } from "../alerts/Service.js"
import { AppConfig } from "../config/AppConfig.js"
import { DealsHttp } from "../deals/Http.js"
import { DealQueries } from "../deals/Queries.js"
import { DealsService } from "../deals/Service.js"
import { OffersHttp } from "../offers/Http.js"
import { OfferQueries } from "../offers/Queries.js"
import { OffersService } from "../offers/Service.js"
import { RatingsHttp } from "../ratings/Http.js"
import { AdminReportsHttp, ReportsHttp } from "../reports/Http.js"
import { ReportQueries } from "../reports/Queries.js"
import { RequestsHttp } from "../requests/Http.js"
import { RequestQueries } from "../requests/Queries.js"
import { AdminSellerProfilesHttp, SellerProfilesHttp } from "../sellers/Http.js"
import { SellerProfileQueries } from "../sellers/Queries.js"

/** REQUEST_TTL_DAYS as core's request workflows read it. */
const RequestSettingsLive = Layer.effect(
  RequestSettings,
  Effect.map(AppConfig, (config) => ({ ttlDays: config.requestTtlDays }))
)

/**
 * The marketplace's workflows (core's use cases over the SQL repositories), the server's own services and its
 * read models (seller profiles, requests, offers, deals, …).
 */
export const MarketplaceServices = Layer.mergeAll(
  SellerProfiles.Default,
  SellerProfileQueries.Default,
  SellerAlertsService.Default,
  Requests.Default.pipe(Layer.provide(RequestSettingsLive)),
  RequestQueries.Default,
  Offers.Default,
  OffersService.Default,
  OfferQueries.Default,
  Deals.Default,
  DealsService.Default,
  DealQueries.Default,
  Ratings.Default,
  Reports.Default,
  ReportQueries.Default
)

/** The handlers of the marketplace groups. */
export const MarketplaceGroups = Layer.mergeAll(
  SellerProfilesHttp,
  AdminSellerProfilesHttp,
  SellerAlertsHttp,
  RequestsHttp,
  OffersHttp,
  DealsHttp,
  RatingsHttp,
  ReportsHttp,
  AdminReportsHttp
)
