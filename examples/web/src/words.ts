/*
 * The page's own words in Arabic and English: its labels, and what it says when a call gets no answer. What the
 * API says (error messages, field problems) comes already in the client's language and is not repeated here.
 * Data only, so the browser test reads the same words.
 */

export type Language = "ar" | "en"

export const words = {
  signedOut: { en: "Signed out", ar: "لم تسجّل الدخول" },
  signedInAs: { en: "Signed in as {phone}", ar: "مسجّل الدخول بالرقم {phone}" },
  signIn: { en: "Sign in", ar: "تسجيل الدخول" },
  signOut: { en: "Sign out", ar: "تسجيل الخروج" },
  mobileNumber: { en: "Mobile number", ar: "رقم الجوال" },
  sendCode: { en: "Send code", ar: "أرسل الرمز" },
  code: { en: "Code", ar: "الرمز" },
  codeSent: { en: "Code sent to {phone}", ar: "أُرسل الرمز إلى {phone}" },
  otherLanguage: { en: "العربية", ar: "English" },
  live: { en: "Live", ar: "متصل" },
  connecting: { en: "Connecting…", ar: "جارٍ الاتصال…" },
  offline: { en: "Not connected", ar: "غير متصل" },

  myRequests: { en: "My requests", ar: "طلباتي" },
  noRequests: { en: "You have no requests yet", ar: "ليس لديك طلبات بعد" },
  newRequest: { en: "What do you want to buy?", ar: "ماذا تريد أن تشتري؟" },
  brand: { en: "Brand", ar: "الماركة" },
  model: { en: "Model", ar: "الطراز" },
  budgetFrom: { en: "Budget from", ar: "الميزانية من" },
  budgetTo: { en: "to", ar: "إلى" },
  district: { en: "District", ar: "الحي" },
  photos: { en: "Photos", ar: "الصور" },
  requestPhotos: { en: "Photos of the request", ar: "صور الطلب" },
  offerPhotos: { en: "Photos of the offer", ar: "صور العرض" },
  messagePhotos: { en: "Photos in the message", ar: "صور الرسالة" },
  attachPhotos: { en: "Attach photos", ar: "أرفق صوراً" },
  postRequest: { en: "Post request", ar: "انشر الطلب" },
  requestPosted: { en: "Request posted: {title}", ar: "نُشر الطلب: {title}" },
  offerCount: { en: "Offers: {count}", ar: "العروض: {count}" },
  request_active: { en: "open", ar: "مفتوح" },
  request_closed: { en: "closed", ar: "مغلق" },
  request_expired: { en: "expired", ar: "منتهٍ" },

  offers: { en: "Offers", ar: "العروض" },
  noOffers: {
    en: "No offers yet: new ones appear here by themselves",
    ar: "لا عروض بعد: تظهر العروض الجديدة هنا تلقائياً"
  },
  unnamedSeller: { en: "Seller without a name", ar: "بائع بلا اسم" },
  deletedUser: { en: "Deleted user", ar: "مستخدم محذوف" },
  rating: { en: "★ {average} ({count} ratings)", ar: "★ {average} ({count} تقييمات)" },
  notRated: { en: "Not rated yet", ar: "لا تقييمات بعد" },
  completedDeals: { en: "{count} completed deals", ar: "صفقات مكتملة: {count}" },
  completionRate: { en: "completes {rate} of deals", ar: "يتمّ {rate} من الصفقات" },
  repliesIn: { en: "replies in about {minutes} min", ar: "يرد خلال {minutes} دقيقة تقريباً" },
  memberSince: { en: "member since {date}", ar: "عضو منذ {date}" },
  revision: { en: "revision {revision}", ar: "التعديل {revision}" },
  youProposed: { en: "you proposed {price}", ar: "اقترحتَ {price}" },
  offer_pending: { en: "pending", ar: "بانتظار ردك" },
  offer_accepted: { en: "accepted", ar: "مقبول" },
  offer_rejected: { en: "rejected", ar: "مرفوض" },
  offer_withdrawn: { en: "withdrawn", ar: "مسحوب" },
  offer_expired: { en: "expired", ar: "منتهٍ" },
  accept: { en: "Accept", ar: "اقبل" },
  counter: { en: "Counter", ar: "اقترح سعراً" },
  yourPrice: { en: "Your price", ar: "سعرك" },
  chat: { en: "Chat", ar: "محادثة" },
  counterSent: { en: "Counter sent: {price}", ar: "أُرسل سعرك المقترح: {price}" },
  dealAccepted: { en: "Deal accepted", ar: "قُبلت الصفقة" },

  chatWith: { en: "Chat with {name}", ar: "محادثة مع {name}" },
  you: { en: "You", ar: "أنت" },
  sent: { en: "Sent", ar: "أُرسلت" },
  read: { en: "Read", ar: "قُرئت" },
  message_counter: { en: "Counter-offer", ar: "سعر مقترح" },
  message_revision: { en: "Offer revised", ar: "تعديل العرض" },
  masked: {
    en: "Contact details appear once the offer is accepted",
    ar: "تظهر بيانات التواصل بعد قبول العرض"
  },
  writeMessage: { en: "Write a message", ar: "اكتب رسالة" },
  send: { en: "Send", ar: "أرسل" },
  emptyMessage: { en: "Write something before sending", ar: "اكتب شيئاً قبل الإرسال" },

  findRequests: { en: "Find requests", ar: "ابحث في الطلبات" },
  search: { en: "Search", ar: "بحث" },
  myPrice: { en: "My price", ar: "سعري" },
  order: { en: "Order", ar: "الترتيب" },
  bestMatch: { en: "Best match", ar: "الأقرب" },
  newest: { en: "Newest", ar: "الأحدث" },
  highestBudget: { en: "Highest budget", ar: "الميزانية الأعلى" },
  lowestBudget: { en: "Lowest budget", ar: "الميزانية الأدنى" },
  found: { en: "Found: {total}", ar: "النتائج: {total}" },

  youAreOffline: {
    en: "You are offline: check your connection, then try again",
    ar: "أنت غير متصل بالإنترنت: تحقق من اتصالك ثم أعد المحاولة"
  },
  corsRefused: {
    en: "The server at {api} answered, but does not let this page ({origin}) read its answers: add {origin} to the server's CORS_ORIGINS",
    ar: "أجاب الخادم {api}، لكنه لا يسمح لهذه الصفحة ({origin}) بقراءة ردوده: أضف {origin} إلى CORS_ORIGINS في إعدادات الخادم"
  },
  unreachable: {
    en: "Could not reach the server at {api}: check the address, and that the server is running",
    ar: "تعذّر الوصول إلى الخادم {api}: تحقق من العنوان ومن أن الخادم يعمل"
  },
  timedOut: {
    en: "The server at {api} did not answer in time; try again",
    ar: "لم يُجب الخادم {api} في الوقت المحدد؛ أعد المحاولة"
  },
  unexpected: { en: "Something went wrong; try again", ar: "حدث خطأ ما؛ أعد المحاولة" }
} satisfies Record<string, Record<Language, string>>

export type WordKey = keyof typeof words

/** A text with its `{name}` placeholders filled in. */
export const fillIn = (text: string, params: Record<string, string | number> = {}) =>
  text.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? ""))

/**
 * A phone number or an address kept left to right inside a sentence of either direction (Unicode isolates): in an
 * Arabic sentence, "+966…" would otherwise show as "…966+".
 */
export const ltr = (text: string) => `\u2066${text}\u2069`
