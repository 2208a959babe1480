"""`python -m schedlib`: the same as the `schedlib` command."""

import sys

from schedlib.cli import main

if __name__ == "__main__":
    sys.exit(main())
