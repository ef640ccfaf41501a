#!/usr/bin/env python3
"""Generate real MLIR workloads for profiling iree-compile.

Each workload stresses one part of the compiler, is deterministic (fixed
seed, so the same NAME and --scale always give the same bytes) and compiles
with:

    iree-compile --iree-hal-target-device=local \
        --iree-hal-local-target-device-backends=llvm-cpu \
        --iree-llvmcpu-target-cpu=generic FILE -o out.vmfb

Usage:
    python3 scripts/workloads.py --list
    python3 scripts/workloads.py NAME --out FILE [--scale N|small|default]

--scale multiplies the amount of work (constant bytes, literal count or
dispatch count). `default` (1) aims at a 3-20 s compile on a 2-core machine,
`small` at 1-3 s, for tests.

hex-constants-bytecode is written by generating hex-constants as text and
converting it with `iree-ir-tool copy --emit-bytecode` (found next to this
Python, or on PATH, or via $IREE_IR_TOOL). Only stdlib is used here.
"""

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

SEED = 20240917
F32_MAP = "affine_map<(d0, d1) -> (d0, d1)>"


def _rng(name):
    return random.Random(f"{SEED}-{name}")


def _f32_bytes(rnd, count):
    """`count` little-endian f32 values with magnitudes in [2^-5, 2), both signs."""
    buf = bytearray(rnd.randbytes(4 * count))
    # Byte 3 of a little-endian f32 is sign + 7 high exponent bits; keep it sane.
    table = bytes((0x3C, 0x3D, 0x3E, 0x3F, 0xBC, 0xBD, 0xBE, 0xBF)[b % 8] for b in range(256))
    buf[3::4] = bytes(buf[3::4]).translate(table)
    return bytes(buf)


def _hex_attr(data):
    return '"0x' + data.hex().upper() + '"'


def _elementwise(lines, out, ins, types, body, shape):
    """Append a 2-D linalg.generic named `out` over equal-shaped `ins`."""
    ty = f"tensor<{shape[0]}x{shape[1]}xf32>"
    maps = ", ".join(["#id"] * (len(ins) + 1))
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types)) + ", %o: f32"
    lines.append(f"  %{out}_e = tensor.empty() : {ty}")
    lines.append(
        f"  %{out} = linalg.generic {{indexing_maps = [{maps}], "
        f'iterator_types = ["parallel", "parallel"]}} '
        f"ins({', '.join('%' + i for i in ins)} : "
        f"{', '.join(f'tensor<{shape[0]}x{shape[1]}x{t}>' for t in types)}) "
        f"outs(%{out}_e : {ty}) {{"
    )
    lines.append(f"  ^bb0({args}):")
    lines.extend("    " + b for b in body)
    lines.append(f"  }} -> {ty}")


# ---------------------------------------------------------------- workloads


def hex_constants(scale):
    """Big dense<"0x..."> constants added to the input: the Lexer dominates parsing."""
    rnd = _rng("hex")
    rows, cols = 1024, 1024
    count = max(1, round(32 * scale))
    shape = (rows, cols)
    ty = f"tensor<{rows}x{cols}xf32>"
    lines = [f"#id = {F32_MAP}", f"func.func @main(%x: {ty}) -> {ty} {{"]
    acc = "x"
    for i in range(count):
        lines.append(f"  %c{i} = arith.constant dense<{_hex_attr(_f32_bytes(rnd, rows * cols))}> : {ty}")
        _elementwise(lines, f"s{i}", [acc, f"c{i}"], ["f32", "f32"],
                     ["%m = arith.mulf %a1, %a0 : f32",
                      "%r = arith.addf %m, %a1 : f32",
                      "linalg.yield %r : f32"], shape)
        acc = f"s{i}"
    lines += [f"  return %{acc} : {ty}", "}", ""]
    return "\n".join(lines)


def f32_literals(scale):
    """Decimal f32 and f16 dense literals: llvm::APFloat string parsing dominates."""
    rnd = _rng("f32")
    rows, cols = 256, 512
    count = max(1, round(24 * scale))
    shape = (rows, cols)
    ty = f"tensor<{rows}x{cols}xf32>"
    lines = [f"#id = {F32_MAP}", f"func.func @main(%x: {ty}) -> {ty} {{"]
    acc = "x"
    for i in range(count):
        elt = "f16" if i % 2 else "f32"
        # Mix plain and exponent spellings and digit counts, as exporters do.
        fmt = ("{:.7f}", "{:.6e}", "{:.9g}", "{:.4f}")[i % 4]
        body = ",\n".join(
            "[" + ", ".join(fmt.format(rnd.uniform(-2.0, 2.0)) for _ in range(cols)) + "]"
            for _ in range(rows)
        )
        lines.append(f"  %c{i} = arith.constant dense<[{body}]> : tensor<{rows}x{cols}x{elt}>")
        conv = ["%c = arith.extf %a1 : f16 to f32"] if elt == "f16" else ["%c = arith.addf %a1, %a1 : f32"]
        _elementwise(lines, f"s{i}", [acc, f"c{i}"], ["f32", elt],
                     conv + ["%r = arith.addf %a0, %c : f32", "linalg.yield %r : f32"], shape)
        acc = f"s{i}"
    lines += [f"  return %{acc} : {ty}", "}", ""]
    return "\n".join(lines)


def const_eval(scale):
    """Constant weights transposed, activated, multiplied and reduced before use:
    IREE's const-eval (JitGlobals) compiles and runs all of it at compile time."""
    rnd = _rng("consteval")
    count = max(1, round(12 * scale))
    sizes = (256, 384, 512, 640, 320, 448)
    acts = ("%h = math.tanh %r : f32", "%h = math.exp %r : f32",
            "%h = arith.mulf %r, %r : f32", "%h = math.sin %r : f32")
    m = 64
    lines = [f"#id = {F32_MAP}", "#row = affine_map<(d0, d1) -> (d0)>", "#col = affine_map<(d0, d1) -> (d1)>",
             f"func.func @main(%x: tensor<{m}x{m}xf32>) -> tensor<{m}x{m}xf32> {{",
             "  %zero = arith.constant 0.0 : f32"]
    acc = "x"
    for i in range(count):
        n = sizes[i % len(sizes)] + 16 * (i // len(sizes))
        sq = f"tensor<{n}x{n}xf32>"
        for w in ("a", "b"):
            lines.append(f"  %w{w}{i} = arith.constant dense<{_hex_attr(_f32_bytes(rnd, n * n))}> : {sq}")
        # Constant-only: t = transpose(wa); s = act(t + wb) * 0.5; p = s x wa; v = row sums of p.
        lines.append(f"  %te{i} = tensor.empty() : {sq}")
        lines.append(f"  %t{i} = linalg.transpose ins(%wa{i} : {sq}) outs(%te{i} : {sq}) permutation = [1, 0]")
        _elementwise(lines, f"s{i}", [f"t{i}", f"wb{i}"], ["f32", "f32"],
                     ["%r = arith.addf %a0, %a1 : f32", acts[i % len(acts)],
                      "%k = arith.constant 0.5 : f32", "%y = arith.mulf %h, %k : f32",
                      "linalg.yield %y : f32"], (n, n))
        lines.append(f"  %pf{i} = linalg.fill ins(%zero : f32) outs(%te{i} : {sq}) -> {sq}")
        lines.append(f"  %p{i} = linalg.matmul ins(%s{i}, %wa{i} : {sq}, {sq}) outs(%pf{i} : {sq}) -> {sq}")
        lines.append(f"  %ve{i} = tensor.empty() : tensor<{n}xf32>")
        lines.append(f"  %vf{i} = linalg.fill ins(%zero : f32) outs(%ve{i} : tensor<{n}xf32>) -> tensor<{n}xf32>")
        lines.append(f"  %v{i} = linalg.generic {{indexing_maps = [#id, #row], "
                     f'iterator_types = ["parallel", "reduction"]}} ins(%p{i} : {sq}) '
                     f"outs(%vf{i} : tensor<{n}xf32>) {{")
        lines += ["  ^bb0(%a: f32, %o: f32):", "    %r = arith.addf %a, %o : f32",
                  "    linalg.yield %r : f32", f"  }} -> tensor<{n}xf32>"]
        # Runtime (cheap, keeps the folded constants alive): y = x + p[:m, :m] + v[:m].
        ty = f"tensor<{m}x{m}xf32>"
        lines.append(f"  %ps{i} = tensor.extract_slice %p{i}[0, 0] [{m}, {m}] [1, 1] : {sq} to {ty}")
        lines.append(f"  %vs{i} = tensor.extract_slice %v{i}[0] [{m}] [1] : tensor<{n}xf32> to tensor<{m}xf32>")
        lines.append(f"  %ye{i} = tensor.empty() : {ty}")
        lines.append(f"  %y{i} = linalg.generic {{indexing_maps = [#id, #id, #col, #id], "
                     f'iterator_types = ["parallel", "parallel"]}} ins(%{acc}, %ps{i}, %vs{i} : {ty}, {ty}, tensor<{m}xf32>) '
                     f"outs(%ye{i} : {ty}) {{")
        lines += ["  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):", "    %r = arith.addf %a, %b : f32",
                  "    %q = arith.addf %r, %c : f32", "    linalg.yield %q : f32", f"  }} -> {ty}"]
        acc = f"y{i}"
    lines += [f"  return %{acc} : tensor<{m}x{m}xf32>", "}", ""]
    return "\n".join(lines)


def many_dispatches(scale):
    """A chain of matmuls, biases, activations and reductions with varied shapes."""
    rnd = _rng("dispatches")
    m = 32
    stages = max(2, round(80 * scale))
    widths = [rnd.choice((48, 64, 80, 96, 112, 128, 160, 192, 224, 256)) for _ in range(stages + 1)]
    acts = [
        ["%y = math.exp %a0 : f32"],
        ["%y = math.tanh %a0 : f32"],
        ["%z = arith.constant 0.0 : f32", "%y = arith.maximumf %a0, %z : f32"],
        ["%n = arith.negf %a0 : f32", "%e = math.exp %n : f32", "%one = arith.constant 1.0 : f32",
         "%d = arith.addf %one, %e : f32", "%y = arith.divf %one, %d : f32"],
        ["%y = arith.mulf %a0, %a0 : f32"],
    ]
    params = []
    lines = ["#id = affine_map<(d0, d1) -> (d0, d1)>",
             "#row = affine_map<(d0, d1) -> (d0)>",
             "#col = affine_map<(d0, d1) -> (d1)>"]
    body = ["  %zero = arith.constant 0.0 : f32"]
    acc = "x"
    for i in range(stages):
        k, n = widths[i], widths[i + 1]
        params += [f"%w{i}: tensor<{k}x{n}xf32>", f"%b{i}: tensor<{n}xf32>"]
        out = f"tensor<{m}x{n}xf32>"
        body.append(f"  %e{i} = tensor.empty() : {out}")
        body.append(f"  %f{i} = linalg.fill ins(%zero : f32) outs(%e{i} : {out}) -> {out}")
        body.append(f"  %mm{i} = linalg.matmul ins(%{acc}, %w{i} : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) "
                    f"outs(%f{i} : {out}) -> {out}")
        # Bias (broadcast along rows) + activation.
        body.append(f"  %act{i} = linalg.generic {{indexing_maps = [#id, #col, #id], "
                    f'iterator_types = ["parallel", "parallel"]}} ins(%mm{i}, %b{i} : {out}, tensor<{n}xf32>) '
                    f"outs(%e{i} : {out}) {{")
        body.append("  ^bb0(%v: f32, %bias: f32, %o: f32):")
        body.append("    %a0 = arith.addf %v, %bias : f32")
        body.extend("    " + s for s in acts[i % len(acts)])
        body.append("    linalg.yield %y : f32")
        body.append(f"  }} -> {out}")
        acc = f"act{i}"
        if i % 3 == 2:
            # Row mean subtraction: a reduction dispatch plus a broadcast.
            body.append(f"  %re{i} = tensor.empty() : tensor<{m}xf32>")
            body.append(f"  %rf{i} = linalg.fill ins(%zero : f32) outs(%re{i} : tensor<{m}xf32>) -> tensor<{m}xf32>")
            body.append(f"  %sum{i} = linalg.generic {{indexing_maps = [#id, #row], "
                        f'iterator_types = ["parallel", "reduction"]}} ins(%{acc} : {out}) '
                        f"outs(%rf{i} : tensor<{m}xf32>) {{")
            body.append("  ^bb0(%v: f32, %o: f32):")
            body.append("    %s = arith.addf %v, %o : f32")
            body.append("    linalg.yield %s : f32")
            body.append(f"  }} -> tensor<{m}xf32>")
            body.append(f"  %nrm{i} = linalg.generic {{indexing_maps = [#id, #row, #id], "
                        f'iterator_types = ["parallel", "parallel"]}} ins(%{acc}, %sum{i} : {out}, tensor<{m}xf32>) '
                        f"outs(%e{i} : {out}) {{")
            body.append("  ^bb0(%v: f32, %s: f32, %o: f32):")
            body.append(f"    %inv = arith.constant {1.0 / n:.8e} : f32")
            body.append("    %mean = arith.mulf %s, %inv : f32")
            body.append("    %d = arith.subf %v, %mean : f32")
            body.append("    linalg.yield %d : f32")
            body.append(f"  }} -> {out}")
            acc = f"nrm{i}"
    result = f"tensor<{m}x{widths[stages]}xf32>"
    sig = ", ".join([f"%x: tensor<{m}x{widths[0]}xf32>"] + params)
    lines.append(f"func.func @main({sig}) -> {result} {{")
    lines += body + [f"  return %{acc} : {result}", "}", ""]
    return "\n".join(lines)


def _unfused_elementwise(dispatches):
    """A @main of independent elementwise dispatches over 64x64 f32.

    Each dispatch is a list of (constant, op) steps: the constant is
    defined, then the op (`arith.mulf` and the like take the previous
    value and the constant, `math.tanh` and the like the previous value
    alone). Each takes its own input and returns its own result, so none
    fuses with another.
    """
    ty = "tensor<64x64xf32>"
    lines = ["#id = affine_map<(d0, d1) -> (d0, d1)>"]
    body = []
    for i, steps in enumerate(dispatches):
        body.append(f"  %e{i} = tensor.empty() : {ty}")
        body.append(f"  %r{i} = linalg.generic {{indexing_maps = [#id, #id], "
                    f'iterator_types = ["parallel", "parallel"]}} ins(%x{i} : {ty}) outs(%e{i} : {ty}) {{')
        body.append("  ^bb0(%a: f32, %o: f32):")
        prev = "%a"
        for j, (value, op) in enumerate(steps):
            body.append(f"    %c{j} = arith.constant {value:.6f} : f32")
            operands = f"{prev}, %c{j}" if op.startswith("arith.") else prev
            body.append(f"    %v{j} = {op} {operands} : f32")
            prev = f"%v{j}"
        body.append(f"    linalg.yield {prev} : f32")
        body.append(f"  }} -> {ty}")
    count = len(dispatches)
    params = ", ".join(f"%x{i}: {ty}" for i in range(count))
    results = ", ".join([ty] * count)
    lines.append(f"func.func @main({params}) -> ({results}) {{")
    lines += body
    lines.append(f"  return {', '.join(f'%r{i}' for i in range(count))} : {results}")
    lines += ["}", ""]
    return "\n".join(lines)


def dispatch_ladder(scale):
    """Independent elementwise dispatches whose bodies grow step by step.

    Dispatch i applies 16 * (i + 1) scalar ops (multiply, add, tanh, exp in
    turn) to its own input and returns its own result, so none fuses with
    another: each compiles to an executable of its own, and their compile
    costs rise with i. This gives `report --by unit` a ranking to recover
    (many-dispatches' executables cost nearly the same).
    """
    steps = max(3, round(10 * scale))
    ops = ("arith.mulf", "arith.addf", "math.tanh", "math.exp")
    return _unfused_elementwise([
        [(1.0 + 0.01 * j + 0.001 * i, ops[j % 4]) for j in range(16 * (i + 1))]
        for i in range(steps)
    ])


def twin_dispatches(scale):
    """Independent elementwise dispatches: some identical, some alike but for constants.

    N identical dispatches (the same 32 scalar ops, multiply, add and tanh
    in turn, with the same constants), N dispatches of other ops
    (multiply, subtract, tanh) whose constants differ from one to the
    next, and one of multiply and exp. None fuses with another.
    iree-compile 3.13 merges the identical ones into one executable; the
    others it codegens once per dispatch. This gives `executables`
    duplicates to name, and some it must not name.
    """
    copies = max(2, round(3 * scale))
    identical = ("arith.mulf", "arith.addf", "math.tanh")
    constants = ("arith.mulf", "arith.subf", "math.tanh")
    other = ("arith.mulf", "math.exp")
    dispatches = [[(1.75, identical[j % 3]) for j in range(32)] for _ in range(copies)]
    dispatches += [[(1.5 + 0.01 * j + 0.125 * copy, constants[j % 3]) for j in range(32)]
                   for copy in range(copies)]
    dispatches.append([(1.5 + 0.01 * j, other[j % 2]) for j in range(32)])
    return _unfused_elementwise(dispatches)


def _ir_tool():
    if os.environ.get("IREE_IR_TOOL"):
        tool = os.environ["IREE_IR_TOOL"]
        return os.path.abspath(tool) if os.sep in tool else tool
    here = os.path.join(os.path.dirname(sys.executable), "iree-ir-tool")
    repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".venv", "bin", "iree-ir-tool")
    for cand in (here, repo):
        if os.access(cand, os.X_OK):
            return cand
    found = shutil.which("iree-ir-tool")
    if not found:
        sys.exit("workloads.py: iree-ir-tool not found (set IREE_IR_TOOL or run scripts/setup.sh)")
    return found


def write_bytecode(text, name, out):
    """Write `text` as MLIR bytecode via `iree-ir-tool copy --emit-bytecode`.

    The text goes to NAME.mlir in a temp dir, passed by relative path so that
    the locations stored in the bytecode do not name the temp dir."""
    out = os.path.abspath(out)
    tool = _ir_tool()
    with tempfile.TemporaryDirectory() as tmp:
        src = name + ".mlir"
        with open(os.path.join(tmp, src), "w") as f:
            f.write(text)
        subprocess.run([tool, "copy", "--emit-bytecode", src, "-o", out], check=True, cwd=tmp)


# name -> (generator, small scale, description, bytecode?)
WORKLOADS = {
    "hex-constants": (hex_constants, 0.125, "dense<\"0x...\"> hex constants (MLIR Lexer)", False),
    "hex-constants-bytecode": (hex_constants, 0.125, "hex-constants as MLIR bytecode", True),
    "f32-literals": (f32_literals, 0.125, "decimal f32/f16 dense literals (APFloat)", False),
    "const-eval": (const_eval, 0.17, "constant transposes/adds/matmuls (JitGlobals)", False),
    "many-dispatches": (many_dispatches, 0.1, "80 matmul stages, ~80 distinct dispatches (LLVM codegen)", False),
    "dispatch-ladder": (dispatch_ladder, 0.6, "10 unfused dispatches of growing bodies (ranking)", False),
    "twin-dispatches": (twin_dispatches, 0.5, "3 identical dispatches, 3 alike but for constants, 1 other (duplicates)", False),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("name", nargs="?", help="workload name (see --list)")
    ap.add_argument("--out", help="output file (.mlir, or .mlirbc for bytecode)")
    ap.add_argument("--scale", default="default", help="N (float), 'small' or 'default'; default is 1")
    ap.add_argument("--list", action="store_true", help="list the workloads and exit")
    args = ap.parse_args()
    if args.list:
        for name, (_, small, desc, _) in WORKLOADS.items():
            print(f"{name:24} {desc} (small = --scale {small})")
        return
    if args.name not in WORKLOADS or not args.out:
        ap.error(f"need NAME (one of {', '.join(WORKLOADS)}) and --out FILE")
    gen, small, _, bytecode = WORKLOADS[args.name]
    scale = {"small": small, "default": 1.0}.get(args.scale)
    if scale is None:
        try:
            scale = float(args.scale)
        except ValueError:
            ap.error(f"bad --scale {args.scale!r}")
    if scale <= 0:
        ap.error("--scale must be positive")
    text = gen(scale)
    if bytecode:
        write_bytecode(text, args.name.removesuffix("-bytecode"), args.out)
    else:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
