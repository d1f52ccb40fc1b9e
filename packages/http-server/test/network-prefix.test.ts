import { describe, expect, it } from "vitest"
import { networkPrefixOf } from "../src/auth/NetworkPrefix.js"

describe("networkPrefixOf", () => {
  it.each([
    ["203.0.113.77", "203.0.113.0/24"],
    ["::ffff:198.51.100.9", "198.51.100.0/24"],
    ["2001:db8:abcd:12:34::1", "2001:db8:abcd::/48"],
    ["2001:db8::1", "2001:db8::/48"],
    ["2001:0:0:1::1", "2001::/48"],
    ["fe80::1%eth0", "fe80::/48"],
    ["::1", "::/48"],
    ["64:ff9b::192.0.2.33", "64:ff9b::/48"]
  ])("keeps only the network of %s: %s", (address, prefix) => {
    expect(networkPrefixOf(address)).toBe(prefix)
  })

  it.each(["unknown", "", "1.2.3", "10.0.0.256", "2001:db8::1::2"])("answers null for %j", (value) => {
    expect(networkPrefixOf(value)).toBeNull()
  })
})
