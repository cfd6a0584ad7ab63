"""Generate Python, gRPC and mypy stubs from protos/ into the git-ignored package croupier/.

Run by `make protos`. Never edit the generated files; change the .proto and regenerate.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import grpc_tools  # type: ignore[import-untyped]
from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "protos"
OUT = ROOT / "croupier"


def main() -> int:
    protos = sorted(str(p.relative_to(PROTO_ROOT)) for p in PROTO_ROOT.rglob("*.proto"))
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir()
    well_known = Path(grpc_tools.__file__).parent / "_proto"
    # protoc finds the mypy plugins on PATH; `make` does not activate the venv, so put the
    # interpreter's bin directory (where protoc-gen-mypy is installed) first.
    bin_dir = str(Path(sys.executable).parent)
    os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"-I{well_known}",
        f"--python_out={ROOT}",
        f"--grpc_python_out={ROOT}",
        f"--mypy_out={ROOT}",
        f"--mypy_grpc_out={ROOT}",
        *protos,
    ]
    code = protoc.main(args)
    if code != 0:
        print("protoc failed", file=sys.stderr)
        return int(code)
    # Every generated directory becomes a regular package so imports and mypy agree.
    for directory in [OUT, *(p for p in OUT.rglob("*") if p.is_dir())]:
        (directory / "__init__.py").touch()
        (directory / "py.typed").touch()
    print(f"generated {len(protos)} proto files into {OUT.relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
