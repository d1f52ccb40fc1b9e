import { generateKeyPairSync, sign } from "node:crypto"

/**
 * A self-signed X.509 certificate for `localhost` / 127.0.0.1 with a P-256 key, built with node:crypto alone
 * (Node cannot issue certificates, so the DER is assembled here). Used as both server cert and test CA.
 */
export const makeSelfSignedCert = (): { readonly key: string; readonly cert: string } => {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
  const ecdsaWithSha256 = sequence(oid("1.2.840.10045.4.3.2"))
  const name = sequence(set(sequence(oid("2.5.4.3"), tlv(0x0c, Buffer.from("localhost")))))
  const now = Date.now()
  const subjectAltName = sequence(
    oid("2.5.29.17"),
    tlv(0x04, sequence(tlv(0x82, Buffer.from("localhost")), tlv(0x87, Buffer.from([127, 0, 0, 1]))))
  )
  const tbs = sequence(
    tlv(0xa0, integer(Buffer.from([2]))),
    integer(Buffer.from([1, ...Array.from({ length: 7 }, () => Math.floor(Math.random() * 256))])),
    ecdsaWithSha256,
    name,
    sequence(utcTime(new Date(now - 60_000)), utcTime(new Date(now + 86_400_000))),
    name,
    publicKey.export({ type: "spki", format: "der" }),
    tlv(0xa3, sequence(subjectAltName))
  )
  const signature = sign("sha256", tbs, privateKey)
  const der = sequence(tbs, ecdsaWithSha256, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])))
  const base64Lines = der.toString("base64").match(/.{1,64}/g) ?? []
  return {
    key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    cert: `-----BEGIN CERTIFICATE-----\n${base64Lines.join("\n")}\n-----END CERTIFICATE-----\n`
  }
}

const length = (n: number): Buffer => {
  if (n < 0x80) return Buffer.from([n])
  const bytes: Array<number> = []
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256)
  return Buffer.from([0x80 | bytes.length, ...bytes])
}

const tlv = (tag: number, ...contents: Array<Buffer>): Buffer => {
  const content = Buffer.concat(contents)
  return Buffer.concat([Buffer.from([tag]), length(content.length), content])
}

const sequence = (...items: Array<Buffer>) => tlv(0x30, ...items)
const set = (...items: Array<Buffer>) => tlv(0x31, ...items)

const integer = (bytes: Buffer): Buffer =>
  tlv(0x02, bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes)

const oid = (dotted: string): Buffer => {
  const [first, second, ...rest] = dotted.split(".").map(Number)
  const bytes = [first! * 40 + second!]
  for (const arc of rest) {
    const base128 = [arc & 0x7f]
    for (let value = arc >> 7; value > 0; value >>= 7) base128.unshift((value & 0x7f) | 0x80)
    bytes.push(...base128)
  }
  return tlv(0x06, Buffer.from(bytes))
}

const utcTime = (date: Date): Buffer => {
  const iso = date.toISOString() // 2025-01-02T03:04:05.678Z
  const digits = `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`
  return tlv(0x17, Buffer.from(digits))
}
