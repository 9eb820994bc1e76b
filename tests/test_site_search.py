"""The browser's search engine (docs/assets/kb-engine.js, run in node) reads queries as the server does."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from kb import build as b
from kb.search.citations import split_citations

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")
assert NODE, "node is not installed (scripts/test installs Debian's nodejs)"

FORMS = [
    "45C4(b)", "45C4b", "第45条C款4(b)", "第45條C款4項（b）", "规则47E2", "規則45C4(b)", "Law 64B", "laws 45C4(b)",
    "第六十四条", "第64条B款6", "64条B款", "第十二墩", "三条", "计台名堂13", "計台名堂第13項", "名堂 36",
    "第64条 藏牌", "藏牌 64B 罚墩", "ＬＡＷ　６４Ｂ", "第九十四条", "第0条", "99A", "第45条C款4项b", "45C9",
    "明手建议", "64A2", "law64", "第一百条", "名堂100",
]

SCRIPT = r"""
const fs = require("fs"), path = require("path");
const [engine, edition] = process.argv.slice(1);
const KbEngine = require(engine);
const load = (rel) => { let d; new Function("kbIndexChunk", fs.readFileSync(path.join(edition, rel), "utf8"))((n, x) => { d = x; }); return Promise.resolve(d); };
const meta = fs.readdirSync(path.join(edition, "idx")).find((f) => /^meta\./.test(f));
KbEngine.open("idx/" + meta, load).then((e) => {
  const forms = JSON.parse(fs.readFileSync(0, "utf8"));
  console.log(JSON.stringify(forms.map((q) => { const [c, rest] = e.splitCitations(q);
    return [c.map((x) => [x.law, x.path, x.start, x.end, x.work]), rest]; })));
});
"""


@pytest.fixture(scope="module")
def site():
    out = b.ensure_built(None, need_site=True)
    return b.site_dir(out)


def run_node(site: Path, forms: list[str]) -> list:
    proc = subprocess.run([NODE, "-e", SCRIPT, str(ROOT / "docs" / "assets" / "kb-engine.js"), str(site / "hans")],
                          input=json.dumps(forms), capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def test_citations_are_read_as_the_server_reads_them(site):
    got = run_node(site, FORMS)
    for form, (cites, rest) in zip(FORMS, got):
        want_cites, want_rest = split_citations(form)
        want = [[c.law, list(c.path), c.start, c.end, c.work] for c in want_cites]
        assert cites == want, form
        assert rest == want_rest, form
