"""Compiles an MLIR file inside this Python process, through the compiler's
C API (`iree.compiler.api`: Session, Source, Invocation, Output), as
iree-turbine and other Python front ends do: libIREECompiler.so runs in
python3, not in a native `iree-compile`.

    python3 compile.py INPUT.mlir OUTPUT.vmfb [IREE FLAG...]
"""

import sys

from iree.compiler.api import Invocation, Output, Session, Source


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    source_path, output_path, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
    with Session() as session:
        session.set_flags(*flags)
        with Invocation(session) as invocation:
            invocation.enable_console_diagnostics()
            with Source.open_file(session, source_path) as source:
                if not invocation.parse_source(source):
                    print(f"cannot parse {source_path}", file=sys.stderr)
                    return 1
            if not invocation.execute():
                print("the compile failed", file=sys.stderr)
                return 1
            with Output.open_file(output_path) as output:
                invocation.output_vm_bytecode(output)
                output.keep()
    return 0


if __name__ == "__main__":
    sys.exit(main())
