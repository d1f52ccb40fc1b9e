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
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  const candidate = mapped?.[1] ?? address
  if (isIPv4(candidate)) return `${candidate.split(".").slice(0, 3).join(".")}.0/24`
  if (!isIPv6(address)) return null
  const hextets = hextetsOf(address.split("%")[0]!)
  if (hextets === undefined) return null
  const [a = 0, b = 0, c = 0] = hextets
  const groups = [a, b, c].map((n) => n.toString(16))
  while (groups.length > 0 && groups.at(-1) === "0") groups.pop()
  return `${groups.join(":")}::/48`
}
