export type { MafInput } from "./document-input.js";
export { type JsonPath, MafDocumentError, MafFormatNotSupportedError } from "./errors.js";
export { type FromMafOptions, fromMafHistory, fromMafSession } from "./from-maf.js";
export type { MafLanguage, MafThreadInfo } from "./maf-thread-info.js";
export { type PythonHistoryFormat, sessionIdFromHistoryFileName } from "./python-history.js";
export type { ServiceSessionOptions } from "./service-session.js";
export { type ToMafHistoryOptions, type ToMafSessionOptions, toMafHistory, toMafSession } from "./to-maf.js";
