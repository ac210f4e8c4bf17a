import { globalSetup } from "@skein/test-support/global-setup";
import { BIN } from "./run-skein.js";

/** The tests run the built CLI, and need a Redis: REDIS_URL's, or one started here and stopped after. */
export default globalSetup({ built: [BIN], redis: true });
