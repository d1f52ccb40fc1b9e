import type { Language } from "@talab/core"
import { type ErrorCode, errorCatalogue } from "../errors/Catalogue.js"

/** A text that depends on a number: the parameter it counts and one form per plural category of the language. */
interface Plural {
  readonly count: string
  readonly forms: Readonly<Partial<Record<Intl.LDMLPluralRule, string>>> & { readonly other: string }
}

type Text = string | Plural

type Catalogue = Readonly<Record<string, Readonly<Record<Language, Text>>>>

const plural = (count: string, forms: Plural["forms"]): Plural => ({ count, forms })

/*
 * Arabic counts nouns in six ways (Intl.PluralRules names them): 1 and 2 have their own words, 3-10 take the
 * plural, 11-99 the singular accusative, 100 and up the singular genitive.
 */
/** A fixed start followed by a counted phrase. */
const phrase = (start: string, counted: Plural): Plural => ({
  count: counted.count,
  forms: Object.fromEntries(
    Object.entries(counted.forms).map(([category, form]) => [category, `${start}${form}`])
  ) as Plural["forms"]
})

const characters = (bound: "min" | "max") => ({
  ar: plural(bound, {
    one: "حرف واحد",
    two: "حرفين",
    few: `{${bound}} أحرف`,
    many: `{${bound}} حرفاً`,
    other: `{${bound}} حرف`
  }),
  en: plural(bound, { one: `{${bound}} character`, other: `{${bound}} characters` })
})

/** The message of each error code, in every language: the catalogue's entries, read for their texts. */
export const errorMessages: Readonly<Record<ErrorCode, Readonly<Record<Language, string>>>> = errorCatalogue

/** Field problems (validation `details`) and other texts; `{name}` is replaced by a parameter. */
export const texts: Catalogue = {
  required: { ar: "هذا الحقل مطلوب", en: "This field is required" },
  invalid: { ar: "القيمة غير صالحة", en: "The value is not valid" },
  must_be_string: { ar: "يجب أن تكون القيمة نصاً", en: "Must be a string" },
  must_be_number: { ar: "يجب أن تكون القيمة رقماً", en: "Must be a number" },
  must_be_integer: { ar: "يجب أن تكون القيمة عدداً صحيحاً", en: "Must be an integer" },
  invalid_characters: { ar: "يحتوي النص على محارف غير مسموح بها", en: "Contains characters that are not allowed" },
  must_be_object: { ar: "يجب أن يكون جسم الطلب كائن JSON", en: "The request body must be a JSON object" },
  idempotency_key_format: {
    ar: "يجب أن يكون من 1 إلى 255 محرفاً من محارف ASCII القابلة للطباعة",
    en: "Must be 1 to 255 printable ASCII characters"
  },
  malformed_json: { ar: "جسم الطلب ليس JSON صالحاً", en: "The request body is not valid JSON" },
  too_deep: {
    ar: "بنية JSON متداخلة بعمق يزيد عن {max} مستوى",
    en: "The JSON body is nested more than {max} levels deep"
  },
  json_required: {
    ar: "أرسل جسم الطلب بصيغة application/json",
    en: "Send the request body as application/json"
  },
  too_short: {
    ar: phrase("يجب ألا يقل الطول عن ", characters("min").ar),
    en: phrase("Must be at least ", characters("min").en)
  },
  too_long: {
    ar: phrase("يجب ألا يزيد الطول عن ", characters("max").ar),
    en: phrase("Must be at most ", characters("max").en)
  },
  contact_details: {
    ar: "لا يمكن أن يحتوي على رقم جوال أو بريد إلكتروني أو رابط أو حساب تواصل",
    en: "Must not contain a phone number, e-mail address, link or social media handle"
  },
  revision_needs_a_field: {
    ar: "أرسل حقلاً واحداً على الأقل من: {fields}",
    en: "Send at least one of: {fields}"
  },
  one_of: { ar: "يجب أن تكون القيمة إحدى: {values}", en: "Must be one of: {values}" },
  positive: { ar: "يجب أن تكون القيمة أكبر من صفر", en: "Must be greater than zero" },
  max_amount: { ar: "يجب ألا تزيد القيمة عن {max}", en: "Must be at most {max}" },
  two_decimals: { ar: "يُسمح بخانتين عشريتين على الأكثر", en: "At most 2 decimal places are allowed" },
  budget_max_below_min: {
    ar: "يجب أن يكون الحد الأعلى للميزانية أكبر من أو يساوي الحد الأدنى",
    en: "Must be greater than or equal to budget_min"
  },
  invalid_phone: { ar: "رقم الجوال غير صالح", en: "The phone number is not a valid mobile number" },
  phone_country_code_missing: {
    ar: "أضف رمز الدولة إلى رقم الجوال بالصيغة الدولية، مثل +966501234567",
    en: "Add the country code: write the mobile number in international format starting with +, e.g. +966501234567"
  },
  phone_country_not_served: {
    ar: "لا نرسل رموز التحقق إلى أرقام هذه الدولة. الدول المتاحة: {countries}",
    en: "Codes are not sent to numbers of this country. Countries served: {countries}"
  },
  otp_format: { ar: "رمز التحقق يتكون من 6 أرقام", en: "The code must be exactly 6 digits" },
  uuid: { ar: "المعرّف غير صالح", en: "Must be a valid UUID" },
  integer_range: {
    ar: "يجب أن تكون القيمة عدداً صحيحاً بين {min} و {max}",
    en: "Must be an integer from {min} to {max}"
  },
  timestamp: { ar: "يجب أن يكون تاريخاً بصيغة ISO 8601", en: "Must be an ISO 8601 timestamp" },
  after_seq_with_before: {
    ar: "لا يمكن استخدام after_seq مع before في الطلب نفسه",
    en: "Cannot be combined with before: page back with before, or forward with after_seq"
  },
  valid_until_range: {
    ar: "يجب أن يكون بعد ساعة واحدة على الأقل من الآن وخلال 30 يوماً على الأكثر",
    en: "Must be at least 1 hour and at most 30 days from now"
  },
  rating_range: { ar: "التقييم عدد صحيح من 1 إلى 5", en: "The rating must be an integer from 1 to 5" },
  deal_not_completed: { ar: "لم تكتمل الصفقة بعد", en: "The deal is not completed" },
  deal_already_rated: { ar: "تم تقييم هذه الصفقة بالفعل", en: "This deal has already been rated" },
  avatar_missing: { ar: "أرفق صورة في الحقل avatar", en: "Attach an image in the avatar field" },
  avatar_corrupt: { ar: "تعذرت قراءة الصورة", en: "The image could not be read" },
  avatar_too_many_pixels: { ar: "أبعاد الصورة كبيرة جداً", en: "The image dimensions are too large" },
  avatar_side_too_long: {
    ar: "يجب ألا يتجاوز أي من ضلعي الصورة 8192 بكسل",
    en: "Neither side of the image may be over 8192 pixels"
  },
  avatar_aspect_ratio: {
    ar: "يجب ألا يزيد أحد ضلعي الصورة على 20 ضعف الآخر",
    en: "One side of the image may be at most 20 times the other"
  },
  avatar_too_costly: {
    ar: "الصورة أثقل من أن تُعالج؛ احفظها بأبعاد أصغر أو بصيغة JPEG عادية",
    en: "The image is too heavy to process; save it smaller or as an ordinary JPEG"
  },
  avatar_type: { ar: "الصورة يجب أن تكون JPEG أو PNG أو WebP", en: "The image must be JPEG, PNG or WebP" },
  avatar_too_large: { ar: "حجم الصورة يجب ألا يتجاوز 5 ميغابايت", en: "The image must be at most 5 MiB" },
  image_missing: { ar: "أرفق صورة في الحقل image", en: "Attach an image in the image field" },
  image_corrupt: { ar: "تعذرت قراءة الصورة", en: "The image could not be read" },
  image_too_many_pixels: {
    ar: "يجب ألا تتجاوز الصورة 40,000,000 بكسل",
    en: "The image may have at most 40,000,000 pixels"
  },
  image_side_too_long: {
    ar: "يجب ألا يتجاوز أي من ضلعي الصورة 8192 بكسل",
    en: "Neither side of the image may be over 8192 pixels"
  },
  image_aspect_ratio: {
    ar: "يجب ألا يزيد أحد ضلعي الصورة على 20 ضعف الآخر",
    en: "One side of the image may be at most 20 times the other"
  },
  image_too_costly: {
    ar: "الصورة أثقل من أن تُعالج؛ احفظها بأبعاد أصغر أو بصيغة JPEG عادية",
    en: "The image is too heavy to process; save it smaller or as an ordinary JPEG"
  },
  image_id: { ar: "يجب أن يكون معرّف صورة", en: "Must be an image id" },
  too_many_images: { ar: "يمكن إرفاق {max} صور على الأكثر", en: "At most {max} images may be attached" },
  image_repeated: { ar: "لا يمكن إرفاق الصورة نفسها مرتين", en: "The same image cannot be attached twice" },
  image_not_available: {
    ar: "كل صورة يجب أن تكون من صورك غير المرفقة بشيء",
    en: "Each image must be one of your own images not attached to anything"
  },
  otp_sent: { ar: "تم إرسال رمز التحقق", en: "A verification code has been sent" },
  otp_sms: {
    ar: "رمز التحقق في طلب: {code}. صالح لمدة 10 دقائق.",
    en: "Your Talab code is {code}. It expires in 10 minutes."
  },
  logged_out: { ar: "تم تسجيل الخروج", en: "You have been signed out" },
  session_ended: { ar: "تم إنهاء الجلسة", en: "The session has been ended" },
  other_sessions_ended: { ar: "تم إنهاء جلساتك الأخرى", en: "Your other sessions have been ended" },
  alert_rule_deleted: { ar: "تم حذف قاعدة التنبيه", en: "The alert rule has been deleted" },
  offer_withdrawn: { ar: "تم سحب العرض", en: "The offer has been withdrawn" },
  price_outside_budget: {
    ar: "تنبيه: السعر خارج نطاق ميزانية المشتري",
    en: "Note: the price is outside the buyer's budget"
  },
  report_resolved: { ar: "تمت معالجة البلاغ", en: "The report has been handled" },
  reported_user_not_in_deal: {
    ar: "المستخدم المُبلَّغ عنه ليس طرفاً في هذه الصفقة",
    en: "The reported user is not a party of this deal"
  },
  not_found_route: { ar: "المسار غير موجود", en: "No such route" },
  too_many_subscriptions: {
    ar: "لا يمكن للاتصال الواحد الاشتراك في أكثر من {max} محادثة",
    en: "One connection can be subscribed to at most {max} conversations"
  },
  already_authenticated: { ar: "تمت المصادقة على هذا الاتصال بالفعل", en: "This connection is already authenticated" },
  push_offer_created_title: { ar: "عرض جديد على طلبك", en: "New offer on your request" },
  push_offer_created_body: {
    ar: "عرض من {seller}: {product} بسعر {price}",
    en: "Offer from {seller}: {product} for {price}"
  },
  push_offer_accepted_title_seller: { ar: "تم قبول عرضك", en: "Your offer was accepted" },
  push_offer_accepted_body_seller: {
    ar: "قبل {buyer} عرضك على {product} بسعر {price}",
    en: "Your offer for {product} at {price} was accepted by {buyer}"
  },
  push_offer_accepted_title_buyer: { ar: "تم تأكيد الصفقة", en: "Your deal is confirmed" },
  push_offer_accepted_body_buyer: {
    ar: "قبلت عرض {seller}: {product} بسعر {price}",
    en: "You accepted the offer from {seller}: {product} for {price}"
  },
  push_offer_countered_title: { ar: "سعر مقترح على عرضك", en: "A counter-offer on your offer" },
  push_offer_countered_body: {
    ar: "يقترح {buyer} {price} على {product}",
    en: "{buyer} proposes {price} for {product}"
  },
  push_offer_revised_title: { ar: "تم تعديل عرض على طلبك", en: "An offer on your request was revised" },
  push_offer_revised_body: {
    ar: "عدّل {seller} عرضه على {product}: {price}",
    en: "{seller} revised their offer for {product}: {price}"
  },
  push_message_title: { ar: "رسالة جديدة من {sender}", en: "New message from {sender}" },
  push_message_body: { ar: "{text}", en: "{text}" },
  push_message_photo: { ar: "📷 صورة", en: "📷 Photo" },
  push_rating_prompt_title: { ar: "كيف كانت صفقتك؟", en: "How was your deal?" },
  push_rating_prompt_body: { ar: "قيّم {seller} على {product}", en: "Rate {seller} for {product}" },
  push_request_expiring_title: { ar: "ينتهي طلبك غداً", en: "Your request expires tomorrow" },
  push_request_expiring_body: {
    ar: "يمكنك تمديد طلبك مرة واحدة لتستمر في تلقي العروض",
    en: "You can extend it once to keep receiving offers"
  },
  push_request_expired_title: { ar: "انتهت صلاحية طلبك", en: "Your request has expired" },
  push_request_expired_body: {
    ar: "لم يعد طلبك يستقبل عروضاً، ويمكنك نشر طلب جديد في أي وقت",
    en: "It no longer receives offers; you can post a new request any time"
  },
  push_seller_profile_rejected_title: {
    ar: "لم تتم الموافقة على طلبك كبائع",
    en: "Your seller application was not approved"
  },
  push_seller_profile_rejected_body: {
    ar: "السبب: {reason}",
    en: "Reason: {reason}"
  },
  push_seller_profile_rejected_no_reason_body: {
    ar: "راجع ملفك في التطبيق لمعرفة التفاصيل",
    en: "See your profile in the app for details"
  },
  push_request_match_title: { ar: "طلب جديد يناسبك", en: "A new request for you" },
  push_request_match_body: {
    ar: "مشترٍ يطلب {product} في {city} بميزانية {budget_min} - {budget_max}",
    en: "A buyer wants {product} in {city}, budget {budget_min} - {budget_max}"
  },
  push_request_match_summary_title: { ar: "طلبات جديدة تناسبك", en: "New requests for you" },
  push_request_match_summary_body: {
    ar: plural("count", {
      one: "طلب آخر يطابق تنبيهاتك",
      two: "طلبان آخران يطابقان تنبيهاتك",
      few: "{count} طلبات أخرى تطابق تنبيهاتك",
      many: "{count} طلباً آخر يطابق تنبيهاتك",
      other: "{count} طلب آخر يطابق تنبيهاتك"
    }),
    en: plural("count", {
      one: "1 more request matches your alerts",
      other: "{count} more requests match your alerts"
    })
  },
  alert_cities_count: { ar: "اذكر من 1 إلى {max} مدينة", en: "List 1 to {max} cities" },
  alert_keywords_count: { ar: "اذكر من 1 إلى {max} كلمات", en: "List 1 to {max} keywords" },
  search_no_words: {
    ar: "اكتب كلمة واحدة على الأقل من الحروف أو الأرقام",
    en: "Must contain at least one word of letters or digits"
  },
  alert_categories_count: { ar: "اذكر فئة واحدة على الأقل", en: "List at least one category" },
  alert_price_max_below_min: {
    ar: "يجب أن يكون السعر الأعلى أكبر من أو يساوي السعر الأدنى",
    en: "Must be greater than or equal to price_min"
  },
  quiet_time_format: { ar: "اكتب الوقت بصيغة HH:MM", en: "Write the time as HH:MM" },
  quiet_time_zone_unknown: {
    ar: "منطقة زمنية غير معروفة (مثل Asia/Riyadh)",
    en: "Unknown time zone (e.g. Asia/Riyadh)"
  },
  quiet_hours_empty: { ar: "يجب أن يختلف وقت البداية عن وقت النهاية", en: "Must differ from quiet_from" },
  quiet_hours_incomplete: {
    ar: "أرسل quiet_from و quiet_to و time_zone معاً، أو null لإلغاء ساعات الهدوء",
    en: "Send quiet_from, quiet_to and time_zone together, or all null for no quiet hours"
  },
  push_details_in_app: { ar: "افتح تطبيق طلب لمعرفة التفاصيل", en: "Open Talab for the details" },
  push_the_buyer: { ar: "المشتري", en: "the buyer" },
  push_the_seller: { ar: "البائع", en: "the seller" },
  push_deleted_user: { ar: "مستخدم محذوف", en: "Deleted user" },
  push_a_phone: { ar: "هاتف", en: "a phone" },
  push_an_accessory: { ar: "إكسسوار", en: "an accessory" }
}

const pluralRules: Record<Language, Intl.PluralRules> = {
  ar: new Intl.PluralRules("ar"),
  en: new Intl.PluralRules("en")
}

/** The form of a text for the parameters: a plural picks its form by the counted parameter. */
const formOf = (text: Text, language: Language, params?: Readonly<Record<string, string | number>>): string => {
  if (typeof text === "string") return text
  const count = Number(params?.[text.count])
  const category = Number.isFinite(count) ? pluralRules[language].select(count) : "other"
  return text.forms[category] ?? text.forms.other
}

/** The text of a key in a language, with `{param}` placeholders filled. Unknown keys fall back to `invalid`. */
export const translate = (key: string, language: Language, params?: Readonly<Record<string, string | number>>) => {
  const template = formOf(texts[key]?.[language] ?? texts.invalid![language], language, params)
  return params ? template.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? `{${name}}`)) : template
}
