"""``bootmark site``: a static site, built from whatever receipts a workspace holds."""

import argparse
import os
import sys

from bootmark.cli.common import module_docstring
from bootmark.core import extras, workspace
from bootmark.core.errors import OK, UsageError

__all__ = ["add_site"]


def _site(args):
    extras.require("matplotlib", "ruptures", purpose="the site (its charts and change points)")
    # late: the site loads matplotlib, ruptures and the bench module (numba)
    from bootmark.site import build as website

    root = workspace.find().root
    out = args.out or os.path.join(root, "docs", "site")
    try:
        files = website.build_site(out, root, say=lambda message: print(f"bootmark site: {message}", file=sys.stderr))
    except website.SiteError as error:
        raise UsageError(str(error)) from None
    pages = [name for name in files if name.endswith(".html")]
    print(
        f"{len(pages)} pages and {len(files) - len(pages)} other files in {out}; open {os.path.join(out, 'index.html')}"
    )
    return OK


def add_site(commands):
    """The ``site`` verb: its arguments and handler."""
    site = commands.add_parser(
        "site",
        help="build a static site from the workspace's receipts (audits, gate runs, engine grid, history)",
        description=module_docstring("bootmark.site.build"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    site.add_argument(
        "--out", help="output folder (default: docs/site in the workspace); replaced if bootmark built it"
    )
    site.set_defaults(handler=_site)
