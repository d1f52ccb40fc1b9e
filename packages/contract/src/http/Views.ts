import { BuyRequest, Deal, Offer, SellerProfile, type SnakeCaseFields, snakeCaseKeys, User } from "@talab/core"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"

/** A Date field of an entity (`DateFromSelf`) as JSON shows it: an ISO 8601 string. */
export type JsonField<S> = S extends typeof Schema.DateFromSelf
  ? typeof Schema.Date
  : S extends Schema.NullOr<typeof Schema.DateFromSelf>
    ? Schema.NullOr<typeof Schema.Date>
    : S

/** An entity's fields as JSON shows them: each Date field an ISO 8601 string, every other field as it is. */
export type JsonFields<Fields extends Schema.Struct.Fields> = { readonly [K in keyof Fields]: JsonField<Fields[K]> }

const isDateFromSelf = (ast: AST.AST) =>
  ast._tag === "Declaration" && Option.getOrUndefined(AST.getSchemaIdAnnotation(ast)) === Schema.DateFromSelfSchemaId

/** `Schema.Date` as it is (the documents name it `Date`), or carrying the description the entity gave the field. */
const describedDate = (ast: AST.AST, date: Schema.Schema.All) => {
  const description = Option.getOrUndefined(AST.getDescriptionAnnotation(ast))
  const dateOwn = Option.getOrUndefined(AST.getDescriptionAnnotation(Schema.DateFromSelf.ast))
  return description === undefined || description === dateOwn ? date : date.annotations({ description })
}

const jsonField = (schema: Schema.Schema.All): Schema.Schema.All => {
  const ast = schema.ast
  if (isDateFromSelf(ast)) return describedDate(ast, Schema.Date)
  if (AST.isUnion(ast) && ast.types.length === 2 && isDateFromSelf(ast.types[0]!) && ast.types[1] === AST.null) {
    return describedDate(ast, Schema.NullOr(Schema.Date))
  }
  return schema
}

/**
 * An entity as the API shows it, derived from its one declaration in core: the same fields under snake_case
 * names, dates as ISO 8601 strings. Its type is the entity itself, so a handler returns the entity and the
 * framework writes the JSON.
 */
export const entityView = <Fields extends { readonly [K: string]: Schema.Schema.All }>(
  fields: Fields
): Schema.Struct<SnakeCaseFields<JsonFields<Fields>>> => {
  const json: Record<string, Schema.Schema.All> = {}
  for (const [name, schema] of Object.entries(fields)) json[name] = jsonField(schema)
  return snakeCaseKeys(json) as unknown as Schema.Struct<SnakeCaseFields<JsonFields<Fields>>>
}

/** A field read under the entity's `name` and written under `Key`, as JSON shows it. */
type ShownAs<Key extends string, S extends Schema.Schema.All> = Schema.PropertySignature<
  ":",
  Schema.Schema.Type<S>,
  Key,
  ":",
  Schema.Schema.Encoded<JsonField<S>>,
  false,
  Schema.Schema.Context<S>
>

/**
 * A field of an entity the API names otherwise (`ipPrefix` shown as `approximate_ip`): the view's type keeps the
 * entity's name, so handlers still return the entity as it is.
 */
export const shownAs = <const Key extends string, S extends Schema.Schema.All>(key: Key, schema: S): ShownAs<Key, S> =>
  Schema.propertySignature(jsonField(schema)).pipe(Schema.fromKey(key)) as unknown as ShownAs<Key, S>

/** The user as the API shows it. */
export const UserView = entityView(User.fields)

/** A seller profile: every field of the resource. */
export const SellerProfileView = entityView(SellerProfile.fields)

/** A seller profile as the caller's own summary shows it. */
export const SellerProfileSummary = SellerProfileView.pick(
  "id",
  "status",
  "businessName",
  "locationDistrict",
  "ratingAvg",
  "ratingCount",
  "rejectionReason"
)

/** A buy request as created: every field of the resource. */
export const RequestView = entityView(BuyRequest.fields).omit("remindedAt")

/** An offer: every field of the resource. */
export const OfferView = entityView(Offer.fields)

/** A deal: every field of the resource. */
export const DealView = entityView(Deal.fields)

/**
 * Whether the account was deleted: then it is shown by its id alone (`name` and any avatar null), wherever another
 * party still sees it.
 */
export const DeletedFlag = Schema.Struct({
  deleted: Schema.Boolean.annotations({
    description: "True when this user deleted their account: only the id is left, and `name` is null."
  })
})

/** A party of a deal as the other sees them (a deleted account as `{id, name: null, deleted: true}`). */
export const Party = Schema.Struct({ ...UserView.pick("id", "name").fields, ...DeletedFlag.fields })
