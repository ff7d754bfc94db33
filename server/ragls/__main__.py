"""`python -m ragls` is the same as the `ragls` console script."""

from ragls.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
