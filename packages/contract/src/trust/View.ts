import { SellerTrust as SellerTrustFigures } from "@talab/core"
import { entityView } from "../http/Views.js"

/** A seller's trust figures (core's `SellerTrust`) as the API shows them. */
export const SellerTrust = entityView(SellerTrustFigures.fields).annotations({ identifier: "SellerTrust" })
