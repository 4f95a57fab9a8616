"""``python -m isdp``: the same command line as the ``isdp`` script."""

from .cli import main

raise SystemExit(main())
