import type { DomainError, Language } from "@talab/core"

/** What the API says about one `error.code`: the HTTP status it answers with and its message in every language. */
interface ErrorEntry extends Readonly<Record<Language, string>> {
  readonly status: number
  /** When the code is answered, for the reference's error tables of operations that do not say more. */
  readonly when?: string
}

/**
 * Every `error.code` of the API (decisions.md section 6): its status, its Arabic and English message and, for the
 * codes many operations share, when it is answered. The response classes, the OpenAPI document's error tables,
 * the localized envelopes and the SDK's code union are all made from it. Its order is the order codes are listed
 * in the documents.
 */
export const errorCatalogue = {
  VALIDATION_ERROR: {
    status: 400,
    ar: "البيانات المرسلة غير صالحة",
    en: "The data sent is not valid",
    when: "a parameter or a field of the body is invalid; `details` names each field"
  },
  UNAUTHORIZED: {
    status: 401,
    ar: "يلزم تسجيل الدخول",
    en: "Authentication is required",
    when: "no access token, or an invalid or expired one"
  },
  INVALID_OTP: { status: 401, ar: "رمز التحقق غير صحيح", en: "The verification code is incorrect" },
  OTP_EXPIRED: { status: 401, ar: "انتهت صلاحية رمز التحقق", en: "The verification code has expired" },
  OTP_ATTEMPTS_EXCEEDED: {
    status: 401,
    ar: "تم تجاوز عدد محاولات التحقق المسموح بها، اطلب رمزاً جديداً",
    en: "Too many verification attempts; request a new code"
  },
  INVALID_REFRESH_TOKEN: { status: 401, ar: "رمز التحديث غير صالح", en: "The refresh token is not valid" },
  FORBIDDEN: {
    status: 403,
    ar: "ليست لديك صلاحية لهذا الإجراء",
    en: "You are not allowed to do this",
    when: "the caller may not do this"
  },
  SELLER_NOT_APPROVED: { status: 403, ar: "حساب البائع غير معتمد", en: "Your seller profile is not approved" },
  NOT_FOUND: {
    status: 404,
    ar: "المورد غير موجود",
    en: "The resource was not found",
    when: "no resource has this id"
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    ar: "حجم البيانات المرسلة كبير جداً",
    en: "The request body is too large",
    when: "the body is over 1 MiB"
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    ar: "نوع المحتوى غير مدعوم",
    en: "The content type is not supported",
    when: "the body's media type is not accepted"
  },
  REQUEST_NOT_ACTIVE: { status: 422, ar: "الطلب غير نشط", en: "The request is not active" },
  REQUEST_ALREADY_CLOSED: { status: 422, ar: "الطلب مغلق بالفعل", en: "The request is already closed" },
  DUPLICATE_PENDING_OFFER: {
    status: 422,
    ar: "لديك عرض قيد الانتظار على هذا الطلب بالفعل",
    en: "You already have a pending offer on this request"
  },
  OFFER_ALREADY_ACCEPTED: { status: 422, ar: "تم قبول العرض بالفعل", en: "The offer has already been accepted" },
  OFFER_NOT_PENDING: { status: 422, ar: "العرض ليس قيد الانتظار", en: "The offer is not pending" },
  CANNOT_OFFER_ON_OWN_REQUEST: {
    status: 422,
    ar: "لا يمكنك تقديم عرض على طلبك",
    en: "You cannot make an offer on your own request"
  },
  DEAL_NOT_ACTIVE: { status: 422, ar: "الصفقة غير نشطة", en: "The deal is not active" },
  OPEN_DEALS_EXIST: {
    status: 422,
    ar: "لديك صفقة مقبولة لم تكتمل أو تُلغَ بعد؛ أكملها أو ألغها قبل حذف الحساب",
    en: "You have an accepted deal that is neither completed nor cancelled; finish it before deleting your account"
  },
  REPORT_NOT_PENDING: { status: 422, ar: "البلاغ ليس قيد الانتظار", en: "The report is not pending" },
  SELLER_PROFILE_EXISTS: { status: 422, ar: "لديك ملف بائع بالفعل", en: "You already have a seller profile" },
  SELLER_PROFILE_NOT_PENDING: {
    status: 422,
    ar: "طلب البائع ليس قيد المراجعة",
    en: "The seller application is not pending"
  },
  SELLER_PROFILE_NOT_APPROVED: {
    status: 422,
    ar: "ملف البائع ليس معتمدًا",
    en: "The seller profile is not approved"
  },
  SELLER_PROFILE_NOT_SUSPENDED: {
    status: 422,
    ar: "ملف البائع ليس موقوفًا",
    en: "The seller profile is not suspended"
  },
  CANNOT_REPORT_SELF: { status: 422, ar: "لا يمكنك الإبلاغ عن نفسك", en: "You cannot report yourself" },
  REPORT_ALREADY_PENDING: {
    status: 422,
    ar: "لديك بلاغ سابق عن هذا المستخدم لا يزال قيد المراجعة",
    en: "You already reported this user and your report is still pending"
  },
  OFFER_EXPIRED: { status: 422, ar: "انتهت صلاحية العرض", en: "The offer has expired" },
  REQUEST_EXPIRED: { status: 422, ar: "انتهت صلاحية الطلب", en: "The request has expired" },
  REQUEST_ALREADY_EXTENDED: {
    status: 422,
    ar: "تم تمديد الطلب من قبل، ولا يمكن تمديده إلا مرة واحدة",
    en: "The request has already been extended; it can be extended only once"
  },
  ALERT_RULE_LIMIT_REACHED: {
    status: 422,
    ar: "وصلت إلى الحد الأقصى لقواعد التنبيه (20)؛ احذف قاعدة قبل إضافة أخرى",
    en: "You already have the most alert rules allowed (20); delete one before adding another"
  },
  IMAGE_LIMIT_REACHED: {
    status: 422,
    ar: "لديك الحد الأقصى من الصور غير المرفقة (50)؛ أرفق صورة أو انتظر حذفها بعد 24 ساعة",
    en: "You already hold the most unattached images allowed (50); attach one, or wait for it to be deleted after 24 hours"
  },
  COUNTER_LIMIT_REACHED: {
    status: 422,
    ar: "وصلت إلى الحد الأقصى لعروض الأسعار المضادة على هذا العرض (3)",
    en: "You already countered this offer the most times allowed (3)"
  },
  OFFER_CHANGED: {
    status: 422,
    ar: "عدّل البائع العرض بعد أن اطلعت عليه؛ راجع العرض الحالي ثم اقبله",
    en: "The seller revised the offer after you saw it; review the current offer, then accept it"
  },
  IDEMPOTENCY_KEY_IN_USE: {
    status: 409,
    ar: "طلب آخر بمفتاح عدم التكرار نفسه لا يزال قيد التنفيذ؛ أعد المحاولة بعد قليل",
    en: "Another request with this Idempotency-Key is still running; retry shortly",
    when: "a call with the same `Idempotency-Key` is still running; retry after `Retry-After`"
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    ar: "استُخدم مفتاح عدم التكرار هذا مع طلب مختلف",
    en: "This Idempotency-Key was used with a different request",
    when: "the `Idempotency-Key` was used with another method, path or body"
  },
  UPGRADE_REQUIRED: {
    status: 426,
    ar: "هذا العنوان يقبل اتصالات WebSocket فقط",
    en: "This address only accepts WebSocket connections"
  },
  RATE_LIMITED: {
    status: 429,
    ar: "عدد الطلبات كبير جداً، حاول لاحقاً",
    en: "Too many requests; try again later",
    when: "too many calls; wait `Retry-After` seconds"
  },
  INTERNAL_ERROR: {
    status: 500,
    ar: "حدث خطأ في الخادم",
    en: "Something went wrong on the server",
    when: "an unexpected failure; nothing internal is shown"
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    ar: "الخدمة غير متاحة مؤقتاً، حاول لاحقاً",
    en: "The service is unavailable for now; try again later",
    when: "a dependency (the database) is unreachable; try again after `Retry-After`"
  }
} as const satisfies Readonly<Record<string, ErrorEntry>>

/** An `error.code` of the API. */
export type ErrorCode = keyof typeof errorCatalogue

const errorCodes = Object.keys(errorCatalogue) as ReadonlyArray<ErrorCode>

/** Every code's HTTP status, in the catalogue's order. */
export const statusOfCode = Object.fromEntries(errorCodes.map((code) => [code, errorCatalogue[code].status])) as {
  readonly [C in ErrorCode]: (typeof errorCatalogue)[C]["status"]
}

/** An HTTP status the API answers errors with. */
export type ErrorStatus = (typeof statusOfCode)[ErrorCode]

/** The codes answered with `status`. */
export type CodeOfStatus<S extends ErrorStatus> = {
  [C in ErrorCode]: (typeof statusOfCode)[C] extends S ? C : never
}[ErrorCode]

/** The codes answered with `status`, in the catalogue's order. */
export const codesOfStatus = <S extends ErrorStatus>(status: S): ReadonlyArray<CodeOfStatus<S>> =>
  errorCodes.filter((code): code is CodeOfStatus<S> => statusOfCode[code] === status)

/** Whether a string is a code of the catalogue. */
export const isErrorCode = (code: unknown): code is ErrorCode =>
  typeof code === "string" && Object.hasOwn(errorCatalogue, code)

/** When `code` is answered, where the operation does not say more; undefined for codes only some operations answer. */
export const whenAnswered = (code: ErrorCode): string | undefined => (errorCatalogue[code] as ErrorEntry).when

/* Every code a domain error of @talab/core carries is in the catalogue: a new one does not compile until it is. */
const everyDomainCodeIsCatalogued: [DomainError["code"]] extends [ErrorCode] ? true : never = true
void everyDomainCodeIsCatalogued
