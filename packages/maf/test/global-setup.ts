import { globalSetup } from "@skein/test-support/global-setup";

// A real redis-server for the Redis history test (MAF's RedisHistoryProvider keeps a Redis list).
export default globalSetup({ redis: true });
