import type { Command } from "../cli/command.js";
import { alternativesCommand } from "./alternatives.js";
import { appendCommand } from "./append.js";
import { checkpointCommand } from "./checkpoint.js";
import { createCommand } from "./create.js";
import { deleteCommand } from "./delete.js";
import { demoCommand } from "./demo.js";
import { editCommand } from "./edit.js";
import { eraseCommand } from "./erase.js";
import { exportCommand } from "./export.js";
import { forkCommand } from "./fork.js";
import { importCommand } from "./import.js";
import { logCommand } from "./log.js";
import { lsCommand } from "./ls.js";
import { migrateCommand } from "./migrate.js";
import { rekeyCommand } from "./rekey.js";
import { rollbackCommand } from "./rollback.js";
import { schemaCommand } from "./schema.js";
import { showCommand } from "./show.js";
import { shredCommand } from "./shred.js";
import { sweepCommand } from "./sweep.js";
import { switchCommand } from "./switch.js";
import { uiCommand } from "./ui.js";
import { viewCommand } from "./view.js";

/** Every command, in the order `skein --help` lists them. */
export const ALL_COMMANDS: readonly Command[] = [
  lsCommand,
  showCommand,
  createCommand,
  appendCommand,
  forkCommand,
  checkpointCommand,
  rollbackCommand,
  editCommand,
  alternativesCommand,
  switchCommand,
  logCommand,
  viewCommand,
  deleteCommand,
  sweepCommand,
  eraseCommand,
  shredCommand,
  exportCommand,
  importCommand,
  migrateCommand,
  rekeyCommand,
  schemaCommand,
  demoCommand,
  uiCommand,
];
