"""Build several mkdocs sites at once from one process: ``python -m kb.site.mkdocs_run CONFIG LOG ...``.

mkdocs, Markdown and their extensions are imported once; then the process forks, one process
per site (the first site is built by this process itself), so the sites are still built in
parallel. Each site's output (what ``mkdocs build --strict -f CONFIG`` prints) goes to its LOG;
the exit status of each is printed as a JSON list on stdout, in the order given. Every process
ends when the one that started it dies (kb/site/build.py kills the whole group otherwise).

This module imports nothing of kb.
"""
from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import traceback

PR_SET_PDEATHSIG = 1
# What `mkdocs build` imports, loaded before the fork (so that it is imported once).
WARM = ("mkdocs.__main__", "mkdocs.commands.build", "mkdocs.config.defaults", "mkdocs.structure.pages",
        "mkdocs.structure.nav", "mkdocs.utils.templates", "markdown", "markdown.extensions.attr_list",
        "markdown.extensions.md_in_html", "markdown.extensions.admonition", "markdown.extensions.tables",
        "markdown.extensions.toc", "pymdownx.details", "pymdownx.superfences", "pymdownx.tabbed", "jinja2",
        "material")


def die_with_parent() -> None:
    """The kernel ends this process when its parent dies, even by kill -9."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def build_one(config: str, log: str) -> int:
    """``mkdocs build --strict -f config`` in this process, its output in ``log``; its exit status."""
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    try:
        from mkdocs.__main__ import cli
        cli.main(args=["build", "--strict", "-f", config], prog_name="mkdocs", standalone_mode=True)
        return 0
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except BaseException:               # noqa: BLE001 - reported in the log, like a crashed mkdocs
        traceback.print_exc()
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def main(argv: list[str]) -> int:
    if not argv or len(argv) % 2:
        print("usage: python -m kb.site.mkdocs_run CONFIG LOG [CONFIG LOG ...]", file=sys.stderr)
        return 2
    jobs = list(zip(argv[::2], argv[1::2]))
    import importlib
    for name in WARM:
        try:
            importlib.import_module(name)
        except ImportError:             # mkdocs reports what it lacks itself
            pass
    out = os.dup(1)                     # this process's own stdout, for the statuses
    children = {}
    for i, (config, log) in enumerate(jobs[1:], start=1):
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                die_with_parent()
                code = build_one(config, log)
            finally:
                os._exit(code)
        children[pid] = i
    codes = [0] * len(jobs)
    codes[0] = build_one(*jobs[0])
    while children:
        pid, status = os.wait()
        if pid in children:
            codes[children.pop(pid)] = os.waitstatus_to_exitcode(status)
    os.write(out, (json.dumps(codes) + "\n").encode())
    return 0 if not any(codes) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
