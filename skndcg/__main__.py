"""``python -m skndcg``: the command line."""

from .cli import main

raise SystemExit(main())
