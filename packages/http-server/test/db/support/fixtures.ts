// The rows of the repository contract live with it in core's tests; the server's database tests seed with them too.
export * from "../../../../core/test/ports/fixtures.js"
