import { freshPostgresDatabase } from "../db/support/databases.js"
import { dispatcherContract } from "./dispatcherContract.js"

dispatcherContract("push dispatcher on PostgreSQL", freshPostgresDatabase)
