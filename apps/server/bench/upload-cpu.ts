/*
 * The CPU one upload costs the server, for the avatar and photo scenarios: each input uploaded alone to a real
 * server `rounds` times, the most CPU a round took (the server shares this process: its JavaScript and its
 * libvips threads) and the wall time, printed as a table.
 */

export interface UploadInput {
  readonly name: string
  readonly bytes: Uint8Array
}

/** Uploads `bytes` as the form part `field` to `path`; the answer's status and the image's problem, if any. */
export const uploadAs =
  (path: string, field: string) =>
  async (apiUrl: string, token: string, bytes: Uint8Array): Promise<{ status: number; detail?: string }> => {
    const form = new FormData()
    form.append(field, new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "image/png" }), "a.png")
    const response = await fetch(`${apiUrl}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: form
    })
    const body: any = await response.json()
    const detail = body?.error?.details?.[field]?.[0] as string | undefined
    return detail === undefined ? { status: response.status } : { status: response.status, detail }
  }

/** Measures every input, prints one line each; the worst CPU of an accepted input and of any input, in seconds. */
export const measureUploads = async (options: {
  readonly inputs: ReadonlyArray<UploadInput>
  readonly rounds: number
  readonly accepted: number
  readonly upload: (bytes: Uint8Array) => Promise<{ status: number; detail?: string }>
}) => {
  console.log(`${"input".padEnd(50)} ${"KiB".padStart(6)}  status  ${"CPU s (max of rounds)".padEnd(22)} wall s`)
  let worstAccepted = 0
  let worst = 0
  for (const { name, bytes } of options.inputs) {
    let cpu = 0
    let wall = 0
    let outcome: { status: number; detail?: string } = { status: 0 }
    for (let round = 0; round < options.rounds; round++) {
      const before = process.cpuUsage()
      const started = performance.now()
      outcome = await options.upload(bytes)
      const used = process.cpuUsage(before)
      cpu = Math.max(cpu, (used.user + used.system) / 1e6)
      wall = Math.max(wall, (performance.now() - started) / 1000)
    }
    if (outcome.status === options.accepted) worstAccepted = Math.max(worstAccepted, cpu)
    worst = Math.max(worst, cpu)
    console.log(
      `${name.padEnd(50)} ${(bytes.length / 1024).toFixed(0).padStart(6)}  ${String(outcome.status).padEnd(6)}  ${cpu.toFixed(3).padEnd(22)} ${wall.toFixed(2)}${outcome.detail ? `  (${outcome.detail})` : ""}`
    )
  }
  return { worstAccepted, worst }
}
