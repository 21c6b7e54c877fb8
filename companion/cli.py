"""The ``companion`` command. Each group of subcommands lives in its own module.

Exit codes everywhere: 0 done/legal, 1 a rules verdict of "illegal", 2 bad input.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion import __version__

if TYPE_CHECKING:
    from companion.config import Config

# Modules with a ``register(subparsers)`` function. Each adds its own subcommands and sets
# ``func`` (args -> exit code) as the parser default.
COMMAND_MODULES: tuple[str, ...] = (
    "companion.commands.score",
    "companion.commands.rules",
    "companion.commands.demo",
    "companion.commands.serve",
    "companion.commands.host",
    "companion.commands.backup",
    "companion.commands.vision",
    "companion.reader.cli",
    "companion.commands.transeuropa",
    "companion.commands.trambahn",
    "companion.commands.network",
    "companion.commands.doctor",
    "companion.commands.blackbox",
)


class CommandError(Exception):
    """Bad input to a command: printed as one plain sentence, exit code 2."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def config_of(args: argparse.Namespace) -> Config:
    """The configuration ``--config`` names, else the usual one; a broken one is a CommandError."""
    from companion.config import ConfigError, load_config

    try:
        return load_config(getattr(args, "config", None))
    except ConfigError as exc:
        raise CommandError(str(exc)) from None


def state_dir_of(args: argparse.Namespace) -> Path:
    """The state directory a command works on: ``--state-dir``, else the configuration's (read
    only then: a broken configuration is a CommandError)."""
    if args.state_dir:
        return Path(args.state_dir)
    return config_of(args).server.state_dir


def command_group(sub: Any, name: str, help: str) -> Any:
    """Add the group ``companion NAME SUBCOMMAND`` (its help and exit code 2 when no subcommand
    is given) and return its subparsers."""
    group = sub.add_parser(name, help=help)
    group.set_defaults(func=lambda args: (group.print_help(), 2)[1])
    return group.add_subparsers(dest=f"{name}_command", metavar="SUBCOMMAND")


def handler(module: str, name: str) -> Callable[[argparse.Namespace], int]:
    """The command handler ``name`` of ``module``, imported only when the command runs (so
    ``companion --help`` and the other commands do not load its stage)."""

    def run(args: argparse.Namespace) -> int:
        return int(getattr(importlib.import_module(module), name)(args))

    return run


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion", description="A referee for Ticket to Ride: Europe tables."
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING - 10 * min(args.verbose, 2),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        return int(func(args))
    except CommandError as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
