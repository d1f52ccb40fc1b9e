import { repositoryContract } from "./repositoryContract.js"
import { pgliteInMemory } from "./support/databases.js"

repositoryContract("SQL repositories on PGlite in memory", pgliteInMemory)
