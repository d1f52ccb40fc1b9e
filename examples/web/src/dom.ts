/** The few DOM helpers every screen uses: no framework, so a reader sees each DOM call. */

export const $ = <E extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as E

export const show = (id: string, visible = true) => {
  $(id).hidden = !visible
}

/** The trimmed value of an input. */
export const value = (id: string) => $<HTMLInputElement>(id).value.trim()

type Child = Node | string | null | undefined | false

/** An element with attributes (`class`, `data-*`, `datetime`, …) and children; `null`/`false` children are skipped. */
export const h = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Array<Child>
): HTMLElementTagNameMap[K] => {
  const element = document.createElement(tag)
  for (const [name, text] of Object.entries(attributes)) element.setAttribute(name, text)
  for (const child of children) if (child !== null && child !== undefined && child !== false) element.append(child)
  return element
}

/** A button running `onClick`; its failures go to `onError` rather than being lost in an unhandled rejection. */
export const button = (
  label: string,
  attributes: Record<string, string>,
  onClick: () => Promise<void>,
  onError: (error: unknown) => void
) => {
  const element = h("button", { type: "button", ...attributes }, label)
  element.addEventListener("click", () => onClick().catch(onError))
  return element
}
