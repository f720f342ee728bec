"""The ``bootmark`` command line."""

import argparse
import sys

from .example import render_s1


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bootmark", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    example = commands.add_parser("example", help="the S1 single-series example (DESIGN.md section 6)")
    example.add_argument("--n-bootstraps", type=int, default=999, help="replicates per method (default 999)")
    example.add_argument("--seed", type=int, default=2026, help="bootstrap seed (default 2026)")
    example.add_argument("--alpha", type=float, default=0.10, help="two-sided tail probability (default 0.10)")
    args = parser.parse_args(argv)
    if args.command == "example":
        print(render_s1(args.n_bootstraps, args.seed, args.alpha))
    return 0


if __name__ == "__main__":
    sys.exit(main())
