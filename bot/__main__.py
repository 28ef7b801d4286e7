"""Entry point of ``kingme`` and ``python -m bot``."""

from __future__ import annotations

import sys


def main() -> None:
    # Imported here, not at the top: the AI's worker processes are spawned, and a spawned process imports the main
    # module again (the ``kingme`` script imports this one); they need none of the command line's imports.
    from bot.cli import main as cli_main

    sys.exit(cli_main())


if __name__ == "__main__":
    main()
