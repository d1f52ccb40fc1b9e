import { isIPv4, isIPv6 } from "node:net"

/** The hextets of an IPv6 address, `::` expanded; an embedded IPv4 tail counts as two. */
const hextetsOf = (address: string): ReadonlyArray<number> | undefined => {
  const [head = "", tail] = address.split("::")
  const parse = (part: string) =>
    part === ""
      ? []
      : part.split(":").flatMap((group) => {
          if (!isIPv4(group)) return [Number.parseInt(group, 16)]
          const [a = 0, b = 0, c = 0, d = 0] = group.split(".").map(Number)
          return [a * 256 + b, c * 256 + d]
        })
  const start = parse(head)
  const end = tail === undefined ? [] : parse(tail)
  const missing = 8 - start.length - end.length
  if (missing < 0 || (tail === undefined && missing !== 0)) return undefined
  return [...start, ...new Array<number>(missing).fill(0), ...end]
}

/**
 * The network an address belongs to, never the address itself: an IPv4 address as its /24 (`203.0.113.0/24`),
 * an IPv6 one as its /48 (`2001:db8:1::/48`), an IPv4-mapped IPv6 address as the IPv4 one. Anything else
 * (a socket with no address, a proxy header that is not an address) is null.
 */
export const networkPrefixOf = (address: string): string | null => {
  const ipv4 = ipv4Of(address)
  if (ipv4 !== undefined) return `${ipv4.split(".").slice(0, 3).join(".")}.0/24`
  const hextets = ipv6HextetsOf(address)
  return hextets === undefined ? null : `${compressed(hextets.slice(0, 3))}::/48`
}

/** The IPv4 address written as itself or as an IPv4-mapped IPv6 address (`::ffff:203.0.113.7`). */
const ipv4Of = (address: string): string | undefined => {
  const candidate = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address
  return isIPv4(candidate) ? candidate : undefined
}

const ipv6HextetsOf = (address: string) => (isIPv6(address) ? hextetsOf(address.split("%")[0]!) : undefined)

/** Leading hextets in hex, trailing zero groups dropped (the caller appends `::`). */
const compressed = (hextets: ReadonlyArray<number>) => {
  const groups = hextets.map((n) => n.toString(16))
  while (groups.length > 0 && groups.at(-1) === "0") groups.pop()
  return groups.join(":")
}

/**
 * Who a per-IP limit counts as one client: an IPv4 address as itself (an IPv4-mapped IPv6 address as the same
 * IPv4 one), an IPv6 address as its /64. A /64 is what one subscriber or host is given, and every address in it
 * is theirs to pick, so keying on the whole address would hand each client 2^64 budgets. Anything that is not an
 * address is kept as it is (every such caller then shares that one key).
 */
export const clientNetworkOf = (address: string): string => {
  const ipv4 = ipv4Of(address)
  if (ipv4 !== undefined) return ipv4
  const hextets = ipv6HextetsOf(address)
  return hextets === undefined ? address : `${compressed(hextets.slice(0, 4))}::/64`
}
