"""`python -m compile_perf ARGS...`: runs the compile-perf program with ARGS.

It replaces the Python process (exec), so the exit code, signals and the
terminal are the program's own.
"""

import os
import sys

from . import binary


def main() -> None:
    try:
        program = binary()
    except FileNotFoundError as error:
        print(f"python -m compile_perf: {error}", file=sys.stderr)
        sys.exit(127)
    os.execv(program, [program, *sys.argv[1:]])


if __name__ == "__main__":
    main()
