// Runs the site's search engine (docs/assets/kb-engine.js) in node over one built edition.
//   node bench/static_search_node.js ENGINE.js EDITION_DIR [LIMIT] < queries (one per line)
// prints one JSON answer {results, not_held} per query line (SearchEngine.answer).
"use strict";
const fs = require("fs");
const path = require("path");
const readline = require("readline");

const [enginePath, edition, limitArg] = process.argv.slice(2);
const KbEngine = require(path.resolve(enginePath));
const limit = Number(limitArg || 10);

function load(rel) {
  const text = fs.readFileSync(path.join(edition, rel), "utf8");
  let data;
  new Function("kbIndexChunk", text)((name, d) => { data = d; });
  return Promise.resolve(data);
}

const meta = fs.readdirSync(path.join(edition, "idx")).find((f) => /^meta\..*\.js$/.test(f));
KbEngine.open("idx/" + meta, load).then(async (engine) => {
  const rl = readline.createInterface({ input: process.stdin });
  for await (const line of rl) {
    const answer = await engine.answer(line, { limit });
    process.stdout.write(JSON.stringify(answer) + "\n");
  }
});
