"""bootmark's harness: the command line, examples and (later) timing, receipts, studies."""

__version__ = "0.1.0"
__all__ = ["__version__"]
