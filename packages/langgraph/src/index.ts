export {
  CheckpointConfigError,
  CheckpointExistsError,
  CheckpointerArgumentError,
  CheckpointRecordError,
  MessageMappingError,
} from "./errors.js";
export { fromLangChainMessages, toLangChainMessages } from "./message-mapping.js";
export { SkeinCheckpointSaver, type SkeinCheckpointSaverOptions } from "./skein-checkpoint-saver.js";
