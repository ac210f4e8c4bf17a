export {
  mafFixtureBytes as fixtureBytes,
  mafFixtureJson as fixtureJson,
  mafFixtureText as fixtureText,
} from "@skein/test-support/maf-fixtures";

/** One fixed time for every import in a test, so that two imports of one document are equal. */
export const IMPORT_TIME = "2026-12-05T12:00:00.000Z";
