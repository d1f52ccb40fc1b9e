import { describe, expect, it } from "vitest"
import { clientNetworkOf, networkPrefixOf } from "../src/auth/NetworkPrefix.js"

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

describe("clientNetworkOf", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["::FFFF:203.0.113.7", "203.0.113.7"],
    ["2001:db8:abcd:12:34::1", "2001:db8:abcd:12::/64"],
    ["2001:db8:abcd:12:ffff:ffff:ffff:ffff", "2001:db8:abcd:12::/64"],
    ["2001:db8::1", "2001:db8::/64"],
    ["fe80::1%eth0", "fe80::/64"],
    ["::1", "::/64"]
  ])("counts %s as %s", (address, network) => {
    expect(clientNetworkOf(address)).toBe(network)
  })

  it("counts every address of one /64 as one client, and neighbouring /64s apart", () => {
    const addresses = Array.from({ length: 40 }, (_, i) => `2001:db8:1:2:${i.toString(16)}::${i + 1}`)
    expect(new Set(addresses.map(clientNetworkOf))).toEqual(new Set(["2001:db8:1:2::/64"]))
    expect(clientNetworkOf("2001:db8:1:3::1")).not.toBe(clientNetworkOf("2001:db8:1:2::1"))
  })

  it.each(["unknown", "", "1.2.3"])("keeps %j, which is not an address, as it is", (value) => {
    expect(clientNetworkOf(value)).toBe(value)
  })
})
