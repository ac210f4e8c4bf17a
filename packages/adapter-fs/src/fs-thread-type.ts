import { fsLogStore } from "./fs-store.js";

/**
 * `fs`: a local thread whose log lives in a file store. Its JSON refers to the thread by id; the store
 * that holds it binds it again (`store.open(JSON.parse(json))`).
 */
export const fsThreadType = fsLogStore.threadType;
