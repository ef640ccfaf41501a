"""compile-perf, the profiler of IREE's compiler, as pip installs it.

The wheel puts the compile-perf program (and libheap_sampler.so, which
`record --heap` preloads into the compile) in the environment's scripts
directory, the venv's bin/; `binary()` finds it there, and
`python -m compile_perf ARGS...` runs it. perf is not in the wheel: it
comes from the system (Debian: apt-get install linux-perf).
"""

import os
import shutil
import sysconfig

__all__ = ["binary"]

PROGRAM = "compile-perf"


def binary() -> str:
    """The path of the compile-perf program this package was installed with.

    Looks in the scripts directory of this interpreter's install scheme
    (a venv's bin/), then in the user scheme's (pip install --user), then
    on PATH. Raises FileNotFoundError, naming where it looked, when none
    has it.
    """
    places = [sysconfig.get_path("scripts")]
    user_scheme = f"{os.name}_user"
    if user_scheme in sysconfig.get_scheme_names():
        places.append(sysconfig.get_path("scripts", user_scheme))
    for place in places:
        candidate = os.path.join(place, PROGRAM)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    on_path = shutil.which(PROGRAM)
    if on_path:
        return on_path
    raise FileNotFoundError(
        f"{PROGRAM} is not in {' or '.join(places)} nor on PATH: "
        "reinstall the compile-perf wheel into this environment"
    )
