import type { SellerProfileSummary, UserView } from "@talab/contract"
import type { SellerProfile, User } from "@talab/core"

export const userView = (user: User): typeof UserView.Type => ({
  id: user.id,
  phone_number: user.phoneNumber,
  name: user.name,
  avatar_url: user.avatarUrl,
  language: user.language,
  is_admin: user.isAdmin,
  created_at: user.createdAt
})

export const sellerProfileSummary = (profile: SellerProfile): typeof SellerProfileSummary.Type => ({
  id: profile.id,
  status: profile.status,
  business_name: profile.businessName,
  location_district: profile.locationDistrict,
  rating_avg: profile.ratingAvg,
  rating_count: profile.ratingCount
})
