import { globalSetup } from "@skein/test-support/global-setup";

export default globalSetup({ postgres: true });
