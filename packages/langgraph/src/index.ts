export { CheckpointConfigError, CheckpointRecordError, MessageMappingError } from "./errors.js";
export { SkeinCheckpointSaver, type SkeinCheckpointSaverOptions } from "./skein-checkpoint-saver.js";
