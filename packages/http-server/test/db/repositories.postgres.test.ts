import { repositoryContract } from "./repositoryContract.js"
import { freshPostgresDatabase } from "./support/databases.js"

repositoryContract("SQL repositories on PostgreSQL", freshPostgresDatabase)
