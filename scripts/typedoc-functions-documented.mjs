// A TypeDoc plugin for `npm run docs`: every exported function has a doc comment. TypeDoc's own rule for functions
// also demands one on every method and callback property of every public class and interface, which is more than
// "no undocumented export"; so typedoc.config.mjs leaves "Function" out of `requiredToBeDocumented` and this checks
// the exported functions alone (a warning, which `treatWarningsAsErrors` turns into a failure).
import { Application, ReflectionKind } from "typedoc";

/** @param {Application} app */
export function load(app) {
  app.on(Application.EVENT_VALIDATE_PROJECT, (project) => {
    for (const reflection of project.getReflectionsByKind(ReflectionKind.Function)) {
      const documented =
        reflection.hasComment() || (reflection.signatures ?? []).some((signature) => signature.hasComment());
      if (!documented) app.logger.warn(`${reflection.getFriendlyFullName()} (Function) has no doc comment`);
    }
  });
}
