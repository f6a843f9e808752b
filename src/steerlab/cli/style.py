"""How the ``steerlab`` command speaks: one red line per error, one exit code convention, one
notice line, progress on stderr.

Every error, the command line's (an unknown option, a missing one, a bad value: click's usage
errors) and the run's, is printed as one line ``error: MESSAGE`` on stderr, red on a terminal,
without a box, a traceback or a line break inside the message, and the command exits with:

- 0: done;
- 1 (``EXIT_FAILED``): the run failed (a ``ValueError``, ``OSError``, ``RuntimeError`` or
  ``ImportError`` from the library while it ran; a missing extra);
- 2 (``EXIT_USAGE``): refused before anything ran: the command line is wrong (usage, an unknown
  name, a missing or unusable file or folder);
- 130 (``EXIT_INTERRUPTED``): interrupted (Ctrl-C).

``OneLineErrors`` is the click group class of the ``steerlab`` app (``typer.Typer(cls=...)``): its
``main`` is what the console script and typer's ``CliRunner`` both call, so the tests see the
errors the user sees. Progress displays (``stage``) go to stderr and vanish when done, so that a
command's stdout (``steerlab fidelity 000 > tables.md``) holds only its result.
"""

from __future__ import annotations

import difflib
import errno
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperGroup

__all__ = [
    "EXIT_CODES",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_USAGE",
    "Failure",
    "OneLineErrors",
    "must_exist",
    "notice",
    "print_error",
    "stage",
    "unknown",
    "usage_error",
]

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

EXIT_CODES = (
    "Exit codes: 0 done; 1 the run failed; 2 refused before anything ran (the command line is "
    "wrong: usage, an unknown name, a missing file or folder); 130 interrupted. Errors are one "
    "line on stderr, starting with 'error:'."
)
"""The convention, as the ``--help`` epilog of every command states it."""

_LIBRARY_ERRORS = (ValueError, OSError, RuntimeError, ImportError)

# click's exceptions as typer raises them: click's own module, or the copy of click that typer
# carries from version 0.29 on; found through typer's public BadParameter, one of them
_click_exceptions = sys.modules[typer.BadParameter.__module__]
ClickException = _click_exceptions.ClickException
UsageError = _click_exceptions.UsageError
# click >= 8.2 raises it for a bare `steerlab` after printing the help (older ones exit with 0)
NoArgsIsHelpError = getattr(_click_exceptions, "NoArgsIsHelpError", ())


class Failure(ClickException):
    """An error the command reports as one line ``error: MESSAGE``, exiting with ``code``."""

    def __init__(self, message: str, code: int = EXIT_FAILED) -> None:
        super().__init__(message)
        self.exit_code = code


def usage_error(message: str) -> Failure:
    """The command line is wrong: ``message``, exit code 2 (nothing has run)."""
    return Failure(message, EXIT_USAGE)


def unknown(what: str, value: str, allowed: Sequence[str], others: str = "") -> Failure:
    """``unknown WHAT 'VALUE'; did you mean 'CLOSE'? WHATs: A, B, C[ OTHERS]``, exit code 2.

    ``CLOSE`` is the allowed name nearest to ``value`` (``difflib.get_close_matches``, its default
    cutoff 0.6); the clause is left out when none is that close. ``others`` is appended to the
    list (for instance ``" or a suite file"``)."""
    close = difflib.get_close_matches(value, list(allowed), n=1)
    guess = f"; did you mean {close[0]!r}?" if close else ";"
    return usage_error(f"unknown {what} {value!r}{guess} {what}s: {', '.join(allowed)}{others}")


def must_exist(option: str, path: Path | None, folder: bool) -> None:
    """Refuse (exit code 2) an ``option`` naming a folder (``folder``) or a file that is not
    there; ``None`` (the option not given) passes."""
    if path is None:
        return
    if folder and not path.is_dir():
        kind = "a file, not a folder" if path.exists() else "not found"
        raise usage_error(f"{option} {str(path)!r}: {kind}")
    if not folder and not path.is_file():
        kind = "a folder, not a file" if path.exists() else "not found"
        raise usage_error(f"{option} {str(path)!r}: {kind}")


def _one_line(message: str) -> str:
    return " ".join(line.strip() for line in str(message).splitlines() if line.strip())


def _stderr() -> Console:
    # made per call: the stream is the one of the moment (typer's CliRunner swaps sys.stderr)
    return Console(stderr=True, soft_wrap=True, highlight=False)


def print_error(message: str) -> None:
    """``error: MESSAGE`` as one line on stderr (``error:`` red on a terminal)."""
    _stderr().print(Text.assemble(("error:", "bold red"), " ", _one_line(message)))


def notice(message: str) -> None:
    """``notice: MESSAGE`` as one line on stderr: the command runs on."""
    _stderr().print(Text.assemble(("notice:", "yellow"), " ", _one_line(message)))


@contextmanager
def stage(description: str) -> Iterator[None]:
    """A spinner, ``description`` and the time elapsed on stderr while the block runs; nothing
    is left on the terminal after it (and nothing is written where stderr is not a terminal)."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    console = _stderr()
    if not console.is_terminal:  # rich's Progress would still end with an empty line
        yield
        return
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        progress.add_task(description, total=None)
        yield


def _click_message(error: ClickException) -> str:
    """Click's message for its own errors, starting in lower case, with where to find help."""
    message = (
        _one_line(error.format_message()).rstrip(".").replace(". Did you mean", "; did you mean")
    )
    if message[:2].istitle():  # "No such option" -> "no such option"; "ADDR ..." stays
        message = message[0].lower() + message[1:]
    context = getattr(error, "ctx", None)
    if context is not None and isinstance(error, UsageError):
        message += f" (see '{context.command_path} --help')"
    return message


class OneLineErrors(TyperGroup):
    """The ``steerlab`` group: every error one line, every exit code the module's convention."""

    def invoke(self, ctx):
        """Run the subcommand; an interrupt or a library error becomes a ``Failure``."""
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, ClickException):
            raise  # Exit and Abort are RuntimeErrors: they take click's own path
        except KeyboardInterrupt:
            raise Failure("interrupted", EXIT_INTERRUPTED) from None
        except _LIBRARY_ERRORS as error:
            if isinstance(error, OSError) and error.errno == errno.EPIPE:
                raise  # stdout closed early (`steerlab fidelity 000 | head`): click's own path
            raise Failure(str(error) or type(error).__name__, EXIT_FAILED) from None

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """Click's ``main`` with one error line and the module's exit codes; in
        ``standalone_mode`` (the console script, ``CliRunner``) it exits, else it returns the exit
        code."""
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except NoArgsIsHelpError:
            code = EXIT_USAGE  # the help is printed already
        except Failure as error:
            print_error(error.message)
            code = error.exit_code
        except ClickException as error:
            print_error(_click_message(error))
            code = EXIT_USAGE if isinstance(error, UsageError) else error.exit_code
        except typer.Abort:
            print_error("aborted")
            code = EXIT_FAILED
        code = 0 if code is None else code
        if standalone_mode:
            sys.exit(code)
        return code
