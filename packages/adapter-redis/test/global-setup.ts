import { globalSetup } from "@skein/test-support/global-setup";

// The outage test always starts its own server, so redis-server is needed even with both URLs set.
export default globalSetup({ redisCluster: true });
