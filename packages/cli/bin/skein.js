#!/usr/bin/env node
// The `skein` bin. It exists before any build, so npm links it on install (also in a fresh clone of the
// repository, where dist/ is built afterwards); the command itself is built into dist/.
import "../dist/bin.js";
