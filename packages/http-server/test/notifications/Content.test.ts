import { describe, expect, it } from "vitest"
import { type Facts, type OfferFacts, wordPush } from "../../src/notifications/Content.js"

const offer: OfferFacts = {
  sellerId: "seller-1",
  sellerName: "Riyadh Phones",
  buyerName: null,
  sellerDeleted: false,
  buyerDeleted: false,
  price: 1500,
  category: "phone",
  productBrand: "Samsung",
  productModel: null
}
const about = (overrides: Partial<OfferFacts> = {}): Facts => ({ kind: "offer", offer: { ...offer, ...overrides } })

describe("wordPush", () => {
  it("tells a rejected applicant why in their language, or points to the app without a reason", () => {
    const rejection = (reason: string | null): Facts => ({ kind: "rejection", reason })
    expect(wordPush("seller_profile_rejected", "user-1", rejection("Wrong registration"), "en")).toEqual({
      title: "Your seller application was not approved",
      body: "Reason: Wrong registration"
    })
    expect(wordPush("seller_profile_rejected", "user-1", rejection("السجل غير مطابق"), "ar")).toEqual({
      title: "لم تتم الموافقة على طلبك كبائع",
      body: "السبب: السجل غير مطابق"
    })
    expect(wordPush("seller_profile_rejected", "user-1", rejection(null), "en").body).toBe(
      "See your profile in the app for details"
    )
    // The profile gone (rows unreadable): still a sentence in the recipient's language.
    expect(wordPush("seller_profile_rejected", "user-1", { kind: "unknown" }, "ar").body).toBe(
      "راجع ملفك في التطبيق لمعرفة التفاصيل"
    )
  })

  it("names the product by brand and model, or by its category when neither is given", () => {
    expect(wordPush("offer_created", "buyer-1", about(), "en").body).toBe("Offer from Riyadh Phones: Samsung for 1,500")
    expect(wordPush("offer_created", "buyer-1", about({ productBrand: null, category: "accessory" }), "en").body).toBe(
      "Offer from Riyadh Phones: an accessory for 1,500"
    )
    expect(wordPush("offer_created", "buyer-1", about({ productBrand: null }), "ar").body).toBe(
      "عرض من Riyadh Phones: هاتف بسعر 1,500"
    )
  })

  it("calls a buyer without a name 'the buyer'", () => {
    expect(wordPush("offer_accepted", "seller-1", about(), "en").body).toBe(
      "Your offer for Samsung at 1,500 was accepted by the buyer"
    )
    expect(wordPush("offer_accepted", "seller-1", about(), "ar").body).toBe("قبل المشتري عرضك على Samsung بسعر 1,500")
  })

  it("names a party who deleted their account 'Deleted user', whatever name the rows still had", () => {
    const gone = about({ sellerDeleted: true, buyerName: "Sara", buyerDeleted: true })
    expect(wordPush("rating_prompt", "buyer-1", gone, "en").body).toContain("Deleted user")
    expect(wordPush("rating_prompt", "buyer-1", gone, "ar").body).toContain("مستخدم محذوف")
    expect(wordPush("offer_accepted", "seller-1", gone, "en").body).toBe(
      "Your offer for Samsung at 1,500 was accepted by Deleted user"
    )
    const message = {
      kind: "message",
      message: {
        senderName: null,
        senderDeleted: true,
        messageText: "hi",
        before: [],
        hasAttachments: false,
        contactsShown: true
      }
    } as const
    expect(wordPush("message", "buyer-1", message, "en").title).toBe("New message from Deleted user")
    expect(wordPush("message", "buyer-1", message, "ar").title).toContain("مستخدم محذوف")
  })

  it("words an accepted offer for the buyer differently from the seller", () => {
    expect(wordPush("offer_accepted", "buyer-1", about(), "en").title).toBe("Your deal is confirmed")
    expect(wordPush("offer_accepted", "seller-1", about(), "en").title).toBe("Your offer was accepted")
  })

  it("quotes at most 200 characters of a message", () => {
    const long = "a".repeat(500)
    const { body, title } = wordPush(
      "message",
      "buyer-1",
      {
        kind: "message",
        message: {
          senderName: "Ali",
          senderDeleted: false,
          messageText: long,
          before: [],
          hasAttachments: false,
          contactsShown: true
        }
      },
      "en"
    )
    expect(title).toBe("New message from Ali")
    expect(body).toHaveLength(200)
    expect(body.endsWith("…")).toBe(true)
  })

  it("masks contact details in a message's preview until the offer is accepted", () => {
    const message = (contactsShown: boolean) =>
      ({
        kind: "message",
        message: {
          senderName: "Ali",
          senderDeleted: false,
          messageText: "call 0501234567",
          before: [],
          hasAttachments: false,
          contactsShown
        }
      }) as const
    expect(wordPush("message", "buyer-1", message(false), "en").body).toBe("call ***")
    expect(wordPush("message", "buyer-1", message(true), "en").body).toBe("call 0501234567")
  })

  it("masks the part of a number whose rest is in the sender's messages before", () => {
    const message = {
      kind: "message",
      message: {
        senderName: "Ali",
        senderDeleted: false,
        messageText: "4567",
        before: ["050 123"],
        hasAttachments: false,
        contactsShown: false
      }
    } as const
    expect(wordPush("message", "buyer-1", message, "en").body).toBe("***")
  })

  it("says a message of photos alone is a photo, in the recipient's language; a text with photos is the text", () => {
    const photos = (messageText: string) =>
      ({
        kind: "message",
        message: {
          senderName: "Ali",
          senderDeleted: false,
          messageText,
          before: [],
          hasAttachments: true,
          contactsShown: true
        }
      }) as const
    expect(wordPush("message", "buyer-1", photos(""), "en").body).toBe("📷 Photo")
    expect(wordPush("message", "buyer-1", photos(""), "ar").body).toBe("📷 صورة")
    expect(wordPush("message", "buyer-1", photos("the back"), "en").body).toBe("the back")
  })

  it("falls back to a generic body in the recipient's language when the rows are gone", () => {
    expect(wordPush("rating_prompt", "buyer-1", { kind: "unknown" }, "ar")).toEqual({
      title: "كيف كانت صفقتك؟",
      body: "افتح تطبيق طلب لمعرفة التفاصيل"
    })
    expect(wordPush("offer_created", "buyer-1", { kind: "unknown" }, "en")).toEqual({
      title: "New offer on your request",
      body: "Open Talab for the details"
    })
  })
})
