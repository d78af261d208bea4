// Builds the widget bundle the Python package loads: one self-contained ES module per widget
// (anywidget loads `_esm` from a blob URL, where relative imports cannot resolve), one CSS file
// per widget, and the message protocol the kernel side validates against. esbuild is pinned in
// package-lock.json, so the same sources give the same bytes; a Python test rebuilds into a temp
// folder and compares (tests/unit/widgets/test_bundle.py).
//
//   node js/build.mjs                 writes codex_nb/widgets/static/
//   node js/build.mjs --outdir DIR    writes DIR (the currency test)
import { copyFile, mkdir, readdir, rename, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const HERE = dirname(fileURLToPath(import.meta.url));
// The widgets' entry modules (each has a default export anywidget calls) and their styles.
const WIDGETS = ["notebook_bridge", "plan_answers", "plan_checklist", "plan_panel", "plan_timeline", "prompts", "sessions", "transcript", "turn_controls"];
const STYLES = ["plan_answers", "plan_checklist", "plan_panel", "plan_timeline", "prompts", "sessions", "transcript", "turn_controls"];

const args = process.argv.slice(2);
const at = args.indexOf("--outdir");
const outdir = resolve(at >= 0 ? args[at + 1] : join(HERE, "..", "codex_nb", "widgets", "static"));

// Built beside the folder and swapped in at the end: a failed build leaves the last good bundle,
// and a file the build no longer writes (a removed widget's) goes.
const staging = `${outdir}.building`;
await rm(staging, { recursive: true, force: true });
await mkdir(staging, { recursive: true });
const common = {
  bundle: true,
  outdir: staging,
  // Paths in the output's comments are relative to the repository, wherever the build runs from.
  absWorkingDir: join(HERE, ".."),
  charset: "utf8",
  legalComments: "none",
  // Whitespace and syntax only: names stay, so a stack trace in the browser still reads.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
  banner: { js: "// Built by js/build.mjs (esbuild) from js/; edit the sources there and rebuild.", css: "/* Built by js/build.mjs (esbuild) from js/; edit the sources there and rebuild. */" },
};
await esbuild.build({
  ...common,
  entryPoints: WIDGETS.map((name) => join(HERE, `${name}.js`)),
  format: "esm",
  target: "es2022",
});
await esbuild.build({ ...common, entryPoints: STYLES.map((name) => join(HERE, `${name}.css`)) });
await copyFile(join(HERE, "protocol.json"), join(staging, "protocol.json"));
await rm(outdir, { recursive: true, force: true });
await rename(staging, outdir);
const written = await readdir(outdir);
console.log(`[build] ${written.length} files in ${outdir}`);
