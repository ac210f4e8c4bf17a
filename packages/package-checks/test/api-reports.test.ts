// The public surface is deliberate: each entry point of each published package has a checked-in report of what it
// exports (packages/<pkg>/api/<entry>.api.md), and a change of the built surface fails here until the report is
// updated with `npm run api:update` and committed. A name is exported from one entry point only, by the package that
// declares it, and carries a doc comment (the rule `npm run docs` enforces with TypeDoc, checked here without
// running TypeDoc over every package).
import { beforeAll, describe, expect, it } from "vitest";
import {
  type ApiReport,
  buildApiReports,
  compareApiReports,
  differenceMessage,
} from "../../../scripts/api-report.mjs";

let reports: ApiReport[];

beforeAll(() => {
  reports = buildApiReports();
});

describe("the API reports", () => {
  it("cover every entry point of every published package, and match the build", () => {
    expect(reports.length).toBeGreaterThan(0);
    const differences = compareApiReports(reports);
    if (differences.length > 0) expect.fail(differenceMessage(differences));
  });

  it("give each name one entry point: no name is exported by two entries of a package", () => {
    const duplicates: string[] = [];
    const seen = new Map<string, string>();
    for (const entry of reports) {
      for (const name of entry.names) {
        const key = `${entry.packageName} ${name}`;
        const first = seen.get(key);
        if (first)
          duplicates.push(`${entry.packageName}: ${name} from both ${first} and ${entry.importPath}`);
        else seen.set(key, entry.importPath);
      }
    }
    expect(duplicates).toEqual([]);
  });

  it("list no name declared in another skein package: users import it from the package that declares it", () => {
    const borrowed = reports.flatMap((report) =>
      report.reexported
        .filter(({ from }) => from.startsWith("@skein/"))
        .map(({ name, from }) => `${report.importPath}: ${name} (declared in ${from})`),
    );
    expect(borrowed).toEqual([]);
  });

  it("show a doc comment on every exported name (what `npm run docs` requires)", () => {
    const undocumented = reports
      .filter((report) => report.undocumented.length > 0)
      .map((report) => `${report.importPath}: ${report.undocumented.join(", ")}`);
    expect(undocumented).toEqual([]);
  });
});
