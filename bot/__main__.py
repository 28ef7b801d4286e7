"""Entry point of ``kingme`` and ``python -m bot``."""

from __future__ import annotations

import sys

from bot.cli import main as cli_main


def main() -> None:
    sys.exit(cli_main())


if __name__ == "__main__":
    main()
