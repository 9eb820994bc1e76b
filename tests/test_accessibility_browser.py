"""Accessibility in Chromium: axe-core finds no serious or critical violation on any kind of page,
in either edition, on a phone and on a desktop, in the light and the dark colour scheme.

The two editions share their DOM (the same templates and pages, text in another script) and so do
the phone and the desktop (mkdocs-material shows or hides parts by CSS): each kind of page is run once
per edition, the Simplified edition on a phone and the Traditional one on a desktop, so that every
edition, every device and every scheme is covered without running the same DOM four times. Each
edition is a class of its own, which the test run gives a process of its own.
"""
from __future__ import annotations

from kbbrowser import DESKTOP, PHONE, new_page

# the law page is landed on a clause, so the highlight of the clause landed on is checked too
PAGE_KINDS = {"home": "", "law": "cbr1999/law-67/#67B1b", "compare": "compare/law-45/", "mahjong": "twmj16/",
              "scoring": "twmj16/patterns/", "search": "search/?q=明手", "subject index": "laws1997/subjects/"}


# The two colour schemes share the DOM: every rule runs in the light scheme, and the rules that read
# colours run again after the reader switches to the dark one (mkdocs-material's palette toggle).
COLOUR_RULES = {"runOnly": {"type": "rule", "values": ["color-contrast", "link-in-text-block"]},
                "resultTypes": ["violations"]}
SCHEME = "() => document.body.getAttribute('data-md-color-scheme')"


# What a run hands back: its violations only, each with its first node (the rest of axe's report,
# passes and all, is large and was most of a run's time on small pages).
RUN = """options => axe.run(document, options).then(r => r.violations.map(v => ({
  id: v.id, impact: v.impact,
  nodes: v.nodes.slice(0, 1).map(n => ({target: n.target, failureSummary: n.failureSummary || ""}))})))"""


def axe_violations(pg, script: str, options: dict) -> list[dict]:
    """axe-core's violations on the page as it is now (axe injected once per page load)."""
    if not pg.evaluate("() => typeof window.axe !== 'undefined'"):
        pg.evaluate(script)
    return pg.evaluate(RUN, options)


DEVICE = {"hans": PHONE, "hant": DESKTOP}


def axe_edition(browser, static_site, edition: str) -> None:
    """No serious or critical violation on any kind of page of one edition (on its DEVICE)."""
    from axe_playwright_python.sync_playwright import Axe
    script = Axe().axe_script
    found = []
    # the runner is not blind: a planted image without alt text is a critical violation
    context, pg, _ = new_page(browser, PHONE, color_scheme="light")
    pg.set_content('<html lang="zh"><title>t</title><body><main><img src="data:,"></main></body></html>')
    planted = axe_violations(pg, script, {"resultTypes": ["violations"]})
    assert any(v["id"] == "image-alt" and v["impact"] == "critical" and v["nodes"][0]["target"] for v in planted)
    context.close()
    for device in (DEVICE[edition],):
        context, pg, errors = new_page(browser, device, color_scheme="light")
        for kind, path in PAGE_KINDS.items():
            pg.goto(f"{static_site}/{edition}/{path}", wait_until="load")
            pg.wait_for_timeout(200)
            assert pg.evaluate(SCHEME) == "default", (kind, pg.evaluate(SCHEME))
            runs = [("light", axe_violations(pg, script, {"resultTypes": ["violations"]}))]
            pg.evaluate("() => document.querySelector('input[data-md-color-scheme=slate]').click()")
            pg.wait_for_function(f"() => ({SCHEME[6:]}) === 'slate'")
            runs.append(("dark", axe_violations(pg, script, COLOUR_RULES)))
            pg.evaluate("() => document.querySelector('input[data-md-color-scheme=default]').click()")
            pg.wait_for_function(f"() => ({SCHEME[6:]}) === 'default'")   # the choice persists: back to light
            for scheme, violations in runs:
                for v in violations:
                    if v["impact"] in ("serious", "critical"):
                        found.append((kind, scheme, device["viewport"]["width"], v["id"], v["nodes"][0]["target"],
                                      v["nodes"][0].get("failureSummary", "")[:160]))
        context.close()
        assert not errors, errors
    assert not found, found


# One class per edition: xdist (`--dist loadscope`) gives each class to a process of its own, so
# the two editions' runs, the slowest of all the tests, go side by side instead of one after the other.
class TestSimplified:
    def test_axe_no_serious_or_critical_violations(self, browser, static_site):
        axe_edition(browser, static_site, "hans")


class TestTraditional:
    def test_axe_no_serious_or_critical_violations(self, browser, static_site):
        axe_edition(browser, static_site, "hant")


def test_calculators_messages_keep_their_contrast(browser, static_site):
    """What the calculators show only after input (an error, a fifth copy, the flowers, the static
    helper's notice, the tray's buttons) keeps 4.5:1 in both schemes; the page-kind runs above
    never see it."""
    from axe_playwright_python.sync_playwright import Axe
    script = Axe().axe_script
    context, pg, errors = new_page(browser, PHONE, color_scheme="light")
    found = []
    for path in ("hans/rules/mahjong/", "hans/rules/bridge/"):
        pg.goto(f"{static_site}/{path}", wait_until="load")
        if "mahjong" in path:
            pg.tap('button.kb-flower')
            pg.fill("#kb-mj-line", "11111m")
            assert pg.locator(".kb-hand-over").is_visible()
            pg.tap('[data-act="go"]')
            pg.wait_for_selector(".kb-error")
        else:
            pg.wait_for_selector(".kb-out .kb-offline")
        for scheme in ("slate", "default"):
            pg.evaluate(f"() => document.querySelector('input[data-md-color-scheme={scheme}]').click()")
            pg.wait_for_function(f"() => ({SCHEME[6:]}) === '{scheme}'")
            for v in axe_violations(pg, script, COLOUR_RULES):
                found.append((path, scheme, v["id"], v["nodes"][0]["target"]))
    context.close()
    assert not errors, errors
    assert not found, found


def test_the_bridge_helpers_form_under_kb_serve(browser, server):
    """The form kb serve gives the bridge helper (a list, a box, a row of events, a flag, the JSON
    box, an error) has no serious or critical violation, and keeps its contrast in both schemes."""
    from axe_playwright_python.sync_playwright import Axe
    script = Axe().axe_script
    context, pg, errors = new_page(browser, PHONE, color_scheme="light")
    found = []
    for edition in ("hans", "hant"):
        pg.goto(f"{server}/{edition}/rules/bridge/", wait_until="load")
        pg.select_option("#kb-br-q", "revoke-established")
        pg.tap("#kb-br-f-events .kb-br-add")
        pg.click(".kb-br-json summary")
        pg.tap('[data-act="go"]')                     # required fields left empty: an error
        pg.wait_for_selector(".kb-out .kb-error")
        runs = [("light", axe_violations(pg, script, {"resultTypes": ["violations"]}))]
        pg.evaluate("() => document.querySelector('input[data-md-color-scheme=slate]').click()")
        pg.wait_for_function(f"() => ({SCHEME[6:]}) === 'slate'")
        runs.append(("dark", axe_violations(pg, script, COLOUR_RULES)))
        pg.evaluate("() => document.querySelector('input[data-md-color-scheme=default]').click()")
        pg.wait_for_function(f"() => ({SCHEME[6:]}) === 'default'")
        found += [(edition, scheme, v["id"], v["nodes"][0]["target"]) for scheme, vs in runs for v in vs
                  if v["impact"] in ("serious", "critical")]
    context.close()
    assert not errors, errors
    assert not found, found
