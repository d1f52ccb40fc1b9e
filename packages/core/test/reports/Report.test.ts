import { describe, expect, it } from "vitest"
import { CannotReportSelf, DomainEvent, fileReport, ReportNotPending, resolveReport } from "../../src/index.js"
import { at, BUYER, left, newReportInput, right, SELLER } from "../support/helpers.js"

const pendingReport = () => right(fileReport(newReportInput(), at(0))).state

describe("fileReport", () => {
  it("files a pending report and raises ReportFiled", () => {
    const input = newReportInput()
    const { state, events } = right(fileReport(input, at(3)))
    expect(state).toEqual({
      ...input,
      status: "pending",
      action: null,
      resolutionNotes: null,
      resolvedAt: null,
      createdAt: at(3)
    })
    expect(events).toEqual([
      DomainEvent.ReportFiled({ reportId: "report-1", reporterId: BUYER, reportedUserId: SELLER })
    ])
  })

  it("files a report without a deal", () => {
    const { state } = right(fileReport(newReportInput({ dealId: null, description: null }), at(3)))
    expect(state.dealId).toBeNull()
    expect(state.status).toBe("pending")
  })

  it("refuses a report about oneself with CannotReportSelf (422)", () => {
    const error = left(fileReport(newReportInput({ reporterId: SELLER, reportedUserId: SELLER }), at(3)))
    expect(error).toBeInstanceOf(CannotReportSelf)
    expect(error.code).toBe("CANNOT_REPORT_SELF")
  })
})

describe("resolveReport", () => {
  it.each([
    ["dismiss", "dismissed"],
    ["warn", "resolved"],
    ["suspend_seller", "resolved"]
  ] as const)("action %s gives status %s with action, notes and resolvedAt", (action, status) => {
    const { state, events } = right(resolveReport(pendingReport(), action, "checked", at(50)))
    expect(state.status).toBe(status)
    expect(state.action).toBe(action)
    expect(state.resolutionNotes).toBe("checked")
    expect(state.resolvedAt).toEqual(at(50))
    expect(events).toEqual([DomainEvent.ReportResolved({ reportId: "report-1", action, status })])
  })

  it("keeps null notes", () => {
    const { state } = right(resolveReport(pendingReport(), "warn", null, at(50)))
    expect(state.resolutionNotes).toBeNull()
  })

  it.each(["resolved", "dismissed"] as const)("refuses a %s report with ReportNotPending (422)", (status) => {
    const error = left(resolveReport({ ...pendingReport(), status }, "warn", null, at(60)))
    expect(error).toBeInstanceOf(ReportNotPending)
    expect(error.code).toBe("REPORT_NOT_PENDING")
  })

  it("a report is resolved at most once", () => {
    const resolved = right(resolveReport(pendingReport(), "dismiss", null, at(1))).state
    expect(left(resolveReport(resolved, "suspend_seller", null, at(2)))).toBeInstanceOf(ReportNotPending)
  })
})
