let issued = 0
// A random start per process, so parallel test files (and runs) rarely hand out the same numbers.
const start = Math.floor(Math.random() * 5_000_000)

/**
 * A valid Saudi mobile number (E.164, `+9665…`) that no earlier call of this process returned. The server
 * accepts only real mobile numbers (libphonenumber's metadata), so invented ones like `+15555550100`
 * are refused with VALIDATION_ERROR; use these in tests.
 *
 * @example
 * const phone = newPhoneNumber()
 * await talab.auth.requestOtp(phone)
 * await talab.auth.signIn({ phoneNumber: phone, otpCode: server.sms.lastCode(phone)! })
 */
export const newPhoneNumber = (): string => {
  issued += 1
  const subscriber = (start + issued) % 10_000_000
  return `+96655${String(subscriber).padStart(7, "0")}`
}
