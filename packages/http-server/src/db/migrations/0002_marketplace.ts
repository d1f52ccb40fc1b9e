import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * Every list of the API is newest first (created_at desc, id desc), so each list has an index in exactly
 * that order behind its filter columns. The checks repeat the domain's rules so that a bug in the
 * service cannot store what the contract forbids.
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    CREATE TABLE seller_profiles (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL CONSTRAINT seller_profiles_user_id_key UNIQUE REFERENCES users (id),
      status text NOT NULL DEFAULT 'pending'
        CONSTRAINT seller_profiles_status_known CHECK (status IN ('pending', 'approved', 'rejected', 'suspended')),
      business_name text NOT NULL CONSTRAINT seller_profiles_business_name_length CHECK (char_length(business_name) BETWEEN 2 AND 120),
      location_district text NOT NULL CONSTRAINT seller_profiles_location_district_length CHECK (char_length(location_district) BETWEEN 1 AND 100),
      location_city text CONSTRAINT seller_profiles_location_city_length CHECK (char_length(location_city) BETWEEN 1 AND 100),
      bio text CONSTRAINT seller_profiles_bio_length CHECK (char_length(bio) <= 2000),
      rating_avg numeric(3, 2) NOT NULL DEFAULT 0 CONSTRAINT seller_profiles_rating_avg_range CHECK (rating_avg BETWEEN 0 AND 5),
      rating_count integer NOT NULL DEFAULT 0 CONSTRAINT seller_profiles_rating_count_positive CHECK (rating_count >= 0),
      created_at timestamptz NOT NULL DEFAULT now(),
      approved_at timestamptz
    );
    CREATE INDEX seller_profiles_by_status ON seller_profiles (status, created_at DESC, id DESC);

    CREATE TABLE buy_requests (
      id uuid PRIMARY KEY,
      buyer_id uuid NOT NULL REFERENCES users (id),
      category text NOT NULL CONSTRAINT buy_requests_category_known CHECK (category IN ('phone', 'accessory')),
      product_brand text CONSTRAINT buy_requests_product_brand_length CHECK (char_length(product_brand) BETWEEN 1 AND 100),
      product_model text CONSTRAINT buy_requests_product_model_length CHECK (char_length(product_model) BETWEEN 1 AND 100),
      condition_pref text NOT NULL DEFAULT 'any'
        CONSTRAINT buy_requests_condition_pref_known CHECK (condition_pref IN ('new', 'used', 'refurbished', 'any')),
      budget_min numeric(12, 2) NOT NULL CONSTRAINT buy_requests_budget_min_range CHECK (budget_min > 0 AND budget_min <= 1000000000),
      budget_max numeric(12, 2) NOT NULL CONSTRAINT buy_requests_budget_max_range CHECK (budget_max > 0 AND budget_max <= 1000000000),
      location_district text NOT NULL CONSTRAINT buy_requests_location_district_length CHECK (char_length(location_district) BETWEEN 1 AND 100),
      location_city text CONSTRAINT buy_requests_location_city_length CHECK (char_length(location_city) BETWEEN 1 AND 100),
      notes text CONSTRAINT buy_requests_notes_length CHECK (char_length(notes) <= 2000),
      status text NOT NULL DEFAULT 'active' CONSTRAINT buy_requests_status_known CHECK (status IN ('active', 'closed')),
      offer_count integer NOT NULL DEFAULT 0 CONSTRAINT buy_requests_offer_count_positive CHECK (offer_count >= 0),
      created_at timestamptz NOT NULL DEFAULT now(),
      closed_at timestamptz,
      CONSTRAINT buy_requests_budget_order CHECK (budget_max >= budget_min),
      CONSTRAINT buy_requests_closed_at_when_closed CHECK ((status = 'closed') = (closed_at IS NOT NULL))
    );
    CREATE INDEX buy_requests_by_status ON buy_requests (status, created_at DESC, id DESC);
    CREATE INDEX buy_requests_by_status_category ON buy_requests (status, category, created_at DESC, id DESC);
    CREATE INDEX buy_requests_by_status_city ON buy_requests (status, location_city, created_at DESC, id DESC);
    CREATE INDEX buy_requests_by_buyer ON buy_requests (buyer_id, created_at DESC, id DESC);

    CREATE TABLE offers (
      id uuid PRIMARY KEY,
      request_id uuid NOT NULL REFERENCES buy_requests (id),
      seller_id uuid NOT NULL REFERENCES users (id),
      price numeric(12, 2) NOT NULL CONSTRAINT offers_price_range CHECK (price > 0 AND price <= 1000000000),
      availability text NOT NULL CONSTRAINT offers_availability_length CHECK (char_length(availability) BETWEEN 1 AND 200),
      condition_notes text CONSTRAINT offers_condition_notes_length CHECK (char_length(condition_notes) <= 2000),
      warranty_notes text CONSTRAINT offers_warranty_notes_length CHECK (char_length(warranty_notes) <= 2000),
      status text NOT NULL DEFAULT 'pending'
        CONSTRAINT offers_status_known CHECK (status IN ('pending', 'accepted', 'rejected', 'withdrawn')),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX offers_one_pending_per_seller ON offers (request_id, seller_id) WHERE status = 'pending';
    CREATE UNIQUE INDEX offers_one_accepted_per_request ON offers (request_id) WHERE status = 'accepted';
    CREATE INDEX offers_by_request ON offers (request_id, created_at DESC, id DESC);
    CREATE INDEX offers_by_seller ON offers (seller_id, created_at DESC, id DESC);

    CREATE TABLE conversations (
      id uuid PRIMARY KEY,
      offer_id uuid NOT NULL CONSTRAINT conversations_offer_id_key UNIQUE REFERENCES offers (id),
      buyer_id uuid NOT NULL REFERENCES users (id),
      seller_id uuid NOT NULL REFERENCES users (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      last_message_at timestamptz,
      CONSTRAINT conversations_two_parties CHECK (buyer_id <> seller_id)
    );
    -- Last activity is the newest message, or the creation of a conversation that has none yet.
    CREATE INDEX conversations_by_buyer ON conversations (buyer_id, (COALESCE(last_message_at, created_at)) DESC, id DESC);
    CREATE INDEX conversations_by_seller ON conversations (seller_id, (COALESCE(last_message_at, created_at)) DESC, id DESC);

    CREATE TABLE messages (
      id uuid PRIMARY KEY,
      conversation_id uuid NOT NULL REFERENCES conversations (id),
      sender_id uuid NOT NULL REFERENCES users (id),
      message_text text NOT NULL CONSTRAINT messages_text_length CHECK (char_length(message_text) BETWEEN 1 AND 4000),
      client_id text,
      read_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX messages_sender_client_id ON messages (sender_id, client_id) WHERE client_id IS NOT NULL;
    CREATE INDEX messages_by_conversation ON messages (conversation_id, created_at DESC, id DESC);
    CREATE INDEX messages_unread ON messages (conversation_id, sender_id) WHERE read_at IS NULL;

    CREATE TABLE deals (
      id uuid PRIMARY KEY,
      request_id uuid NOT NULL CONSTRAINT deals_request_id_key UNIQUE REFERENCES buy_requests (id),
      offer_id uuid NOT NULL CONSTRAINT deals_offer_id_key UNIQUE REFERENCES offers (id),
      buyer_id uuid NOT NULL REFERENCES users (id),
      seller_id uuid NOT NULL REFERENCES users (id),
      conversation_id uuid NOT NULL REFERENCES conversations (id),
      status text NOT NULL DEFAULT 'accepted'
        CONSTRAINT deals_status_known CHECK (status IN ('accepted', 'completed', 'cancelled')),
      created_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz,
      cancelled_at timestamptz,
      cancel_reason text CONSTRAINT deals_cancel_reason_length CHECK (char_length(cancel_reason) BETWEEN 1 AND 200),
      cancel_description text CONSTRAINT deals_cancel_description_length CHECK (char_length(cancel_description) <= 2000),
      CONSTRAINT deals_completed_at_when_completed CHECK ((status = 'completed') = (completed_at IS NOT NULL)),
      CONSTRAINT deals_cancelled_at_when_cancelled CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL))
    );
    CREATE INDEX deals_by_buyer ON deals (buyer_id, created_at DESC, id DESC);
    CREATE INDEX deals_by_seller ON deals (seller_id, created_at DESC, id DESC);

    CREATE TABLE ratings (
      id uuid PRIMARY KEY,
      deal_id uuid NOT NULL CONSTRAINT ratings_deal_id_key UNIQUE REFERENCES deals (id),
      seller_id uuid NOT NULL REFERENCES users (id),
      buyer_id uuid NOT NULL REFERENCES users (id),
      rating integer NOT NULL CONSTRAINT ratings_rating_range CHECK (rating BETWEEN 1 AND 5),
      review_text text CONSTRAINT ratings_review_text_length CHECK (char_length(review_text) <= 2000),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX ratings_by_seller ON ratings (seller_id, created_at DESC, id DESC);

    CREATE TABLE reports (
      id uuid PRIMARY KEY,
      reporter_id uuid NOT NULL REFERENCES users (id),
      reported_user_id uuid NOT NULL REFERENCES users (id),
      deal_id uuid REFERENCES deals (id),
      reason text NOT NULL CONSTRAINT reports_reason_known CHECK (reason IN ('fake_offer', 'no_show', 'rude', 'scam', 'other')),
      description text CONSTRAINT reports_description_length CHECK (char_length(description) <= 2000),
      status text NOT NULL DEFAULT 'pending' CONSTRAINT reports_status_known CHECK (status IN ('pending', 'resolved', 'dismissed')),
      action text CONSTRAINT reports_action_known CHECK (action IN ('dismiss', 'warn', 'suspend_seller')),
      resolution_notes text CONSTRAINT reports_resolution_notes_length CHECK (char_length(resolution_notes) <= 2000),
      resolved_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT reports_not_self CHECK (reporter_id <> reported_user_id),
      CONSTRAINT reports_resolution_when_done CHECK ((status = 'pending') = (action IS NULL AND resolved_at IS NULL))
    );
    CREATE INDEX reports_by_status ON reports (status, created_at DESC, id DESC);
    CREATE INDEX reports_newest ON reports (created_at DESC, id DESC);
  `
)
