import * as Layer from "effect/Layer"
import { SellerAlertsHttp } from "../alerts/Http.js"
import { SellerAlertsService } from "../alerts/Service.js"
import { DealsHttp } from "../deals/Http.js"
import { DealQueries } from "../deals/Queries.js"
import { DealsService } from "../deals/Service.js"
import { OffersHttp } from "../offers/Http.js"
import { OfferQueries } from "../offers/Queries.js"
import { OffersService } from "../offers/Service.js"
import { RatingsHttp } from "../ratings/Http.js"
import { RatingsService } from "../ratings/Service.js"
import { AdminReportsHttp, ReportsHttp } from "../reports/Http.js"
import { ReportQueries } from "../reports/Queries.js"
import { ReportsService } from "../reports/Service.js"
import { RequestsHttp } from "../requests/Http.js"
import { RequestQueries } from "../requests/Queries.js"
import { RequestsService } from "../requests/Service.js"
import { AdminSellerProfilesHttp, SellerProfilesHttp } from "../sellers/Http.js"
import { SellerProfileQueries } from "../sellers/Queries.js"
import { SellerProfilesService } from "../sellers/Service.js"

/** The application services and read models of the marketplace (seller profiles, requests, offers, deals, …). */
export const MarketplaceServices = Layer.mergeAll(
  SellerProfilesService.Default,
  SellerProfileQueries.Default,
  SellerAlertsService.Default,
  RequestsService.Default,
  RequestQueries.Default,
  OffersService.Default,
  OfferQueries.Default,
  DealsService.Default,
  DealQueries.Default,
  RatingsService.Default,
  ReportsService.Default,
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
