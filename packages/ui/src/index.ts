export type * from "./api-types.js";
export { UiAssetsMissingError, UiRequestError } from "./errors.js";
export { startUi, type UiOptions, type UiServer } from "./server/start-ui.js";
