import { pgliteInMemory } from "../db/support/databases.js"
import { dispatcherContract } from "./dispatcherContract.js"

dispatcherContract("push dispatcher on PGlite in memory", pgliteInMemory)
