import { globalSetup } from "@skein/test-support/global-setup";

// Without redis-server the task-store tests get "" and skip their Redis cases, saying what they need.
export default globalSetup({ redis: "optional" });
