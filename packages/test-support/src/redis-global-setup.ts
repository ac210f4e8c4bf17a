// This package's own tests run on its global setup, as every package's do.
import { globalSetup } from "./global-setup.js";

export default globalSetup({ redis: true });
