import { globalSetup } from "@skein/test-support/global-setup";

export default globalSetup({ redis: true });
