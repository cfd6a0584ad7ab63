"""Every .proto under protos/ follows croupier's API conventions (the same rules `buf lint`
applies in `make proto-lint`, checked here so they hold wherever `make test` runs):

* ``package croupier.<svc>.v1`` in ``protos/croupier/<svc>/v1/``;
* enum zero values are ``<ENUM_NAME>_UNSPECIFIED = 0`` and every value carries the prefix;
* services end in ``Service``; every RPC takes its own ``<Rpc>Request`` and returns its own
  ``<Rpc>Response`` (never shared with another RPC);
* every service, RPC and message has a leading comment — except ``<Rpc>Request`` /
  ``<Rpc>Response``, which the RPC's comment documents;
* chip amounts are ``int64``;
* the generated code (``make protos``) is importable and agrees with the sources.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import grpc_tools  # type: ignore[import-untyped]  # (it ships no stubs or py.typed, as in tools/)
import pytest
from google.protobuf import descriptor_pb2
from grpc_tools import protoc

ROOT = Path(__file__).resolve().parents[3]
PROTO_ROOT = ROOT / "protos"
PROTO_FILES = sorted(str(p.relative_to(PROTO_ROOT)) for p in PROTO_ROOT.rglob("*.proto"))

# descriptor_pb2 field numbers used in SourceCodeInfo.Location.path.
MESSAGE_TYPE, ENUM_TYPE, SERVICE = 4, 5, 6
METHOD = 2
CHIP_FIELD = re.compile(r"^(amount|chips|.+_chips)$")
INTEGER_OR_FLOAT = {
    descriptor_pb2.FieldDescriptorProto.TYPE_INT32,
    descriptor_pb2.FieldDescriptorProto.TYPE_UINT32,
    descriptor_pb2.FieldDescriptorProto.TYPE_UINT64,
    descriptor_pb2.FieldDescriptorProto.TYPE_SINT32,
    descriptor_pb2.FieldDescriptorProto.TYPE_SINT64,
    descriptor_pb2.FieldDescriptorProto.TYPE_FIXED32,
    descriptor_pb2.FieldDescriptorProto.TYPE_FIXED64,
    descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE,
    descriptor_pb2.FieldDescriptorProto.TYPE_FLOAT,
}


@cache
def descriptor_set(out_dir: str) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    out = Path(out_dir) / "protos.pb"
    well_known = Path(grpc_tools.__file__).parent / "_proto"
    code = protoc.main(
        [
            "grpc_tools.protoc",
            f"-I{PROTO_ROOT}",
            f"-I{well_known}",
            "--include_source_info",
            f"--descriptor_set_out={out}",
            *PROTO_FILES,
        ]
    )
    assert code == 0, "protoc could not compile protos/"
    files = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file
    return {f.name: f for f in files}


@pytest.fixture(scope="module")
def files(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    return descriptor_set(str(tmp_path_factory.mktemp("protos")))


def _comments(file: descriptor_pb2.FileDescriptorProto) -> dict[tuple[int, ...], str]:
    return {tuple(loc.path): loc.leading_comments.strip() for loc in file.source_code_info.location}


def _upper_snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).upper()


def test_there_are_protos_to_check() -> None:
    assert "croupier/common/v1/chips.proto" in PROTO_FILES


@pytest.mark.parametrize("name", PROTO_FILES)
def test_package_matches_its_directory(
    files: dict[str, descriptor_pb2.FileDescriptorProto], name: str
) -> None:
    parts = Path(name).parent.parts
    assert len(parts) == 3 and parts[0] == "croupier" and re.fullmatch(r"v\d+", parts[2]), (
        f"{name}: protos live in protos/croupier/<svc>/v<N>/"
    )
    assert files[name].package == ".".join(parts), f"{name}: package must be {'.'.join(parts)}"


def _all_enums(
    file: descriptor_pb2.FileDescriptorProto,
) -> Iterator[tuple[str, descriptor_pb2.EnumDescriptorProto]]:
    yield from ((e.name, e) for e in file.enum_type)
    stack = list(file.message_type)
    while stack:
        message = stack.pop()
        yield from ((f"{message.name}.{e.name}", e) for e in message.enum_type)
        stack.extend(message.nested_type)


@pytest.mark.parametrize("name", PROTO_FILES)
def test_enums_start_at_an_unspecified_zero_value(
    files: dict[str, descriptor_pb2.FileDescriptorProto], name: str
) -> None:
    for qualified, enum in _all_enums(files[name]):
        prefix = _upper_snake(enum.name) + "_"
        zero = enum.value[0]
        assert zero.number == 0 and zero.name == f"{prefix}UNSPECIFIED", (
            f"{name}: enum {qualified} must begin with {prefix}UNSPECIFIED = 0"
        )
        bad = [v.name for v in enum.value if not v.name.startswith(prefix)]
        assert not bad, f"{name}: values of {qualified} must start with {prefix}: {bad}"


@pytest.mark.parametrize("name", PROTO_FILES)
def test_every_rpc_has_its_own_request_and_response(
    files: dict[str, descriptor_pb2.FileDescriptorProto], name: str
) -> None:
    file = files[name]
    seen: set[str] = set()
    for service in file.service:
        assert service.name.endswith("Service"), f"{name}: {service.name} must end in Service"
        for method in service.method:
            for kind, type_name in (
                ("Request", method.input_type),
                ("Response", method.output_type),
            ):
                expected = f".{file.package}.{method.name}{kind}"
                assert type_name == expected, (
                    f"{name}: rpc {service.name}.{method.name} must use {expected[1:]}, "
                    f"not {type_name[1:]}"
                )
                assert type_name not in seen, f"{name}: {type_name[1:]} is used by two RPCs"
                seen.add(type_name)


@pytest.mark.parametrize("name", PROTO_FILES)
def test_services_rpcs_and_messages_have_leading_comments(
    files: dict[str, descriptor_pb2.FileDescriptorProto], name: str
) -> None:
    file = files[name]
    comments = _comments(file)
    missing = []
    rpc_types = set()
    for si, service in enumerate(file.service):
        if not comments.get((SERVICE, si)):
            missing.append(f"service {service.name}")
        for mi, method in enumerate(service.method):
            rpc_types.update({method.input_type, method.output_type})
            if not comments.get((SERVICE, si, METHOD, mi)):
                missing.append(f"rpc {service.name}.{method.name}")
    for mi, message in enumerate(file.message_type):
        if f".{file.package}.{message.name}" in rpc_types:
            continue
        if not comments.get((MESSAGE_TYPE, mi)):
            missing.append(f"message {message.name}")
    assert not missing, f"{name}: add a leading // comment to: {', '.join(missing)}"


@pytest.mark.parametrize("name", PROTO_FILES)
def test_chip_amounts_are_int64(
    files: dict[str, descriptor_pb2.FileDescriptorProto], name: str
) -> None:
    stack = list(files[name].message_type)
    wrong = []
    while stack:
        message = stack.pop()
        stack.extend(message.nested_type)
        for field in message.field:
            if CHIP_FIELD.match(field.name) and field.type in INTEGER_OR_FLOAT:
                wrong.append(f"{message.name}.{field.name}")
    assert not wrong, f"{name}: chip amounts must be int64: {wrong}"


@pytest.mark.parametrize("name", PROTO_FILES)
def test_generated_code_is_importable_and_current(
    files: dict[str, descriptor_pb2.FileDescriptorProto], name: str
) -> None:
    module = importlib.import_module(name.removesuffix(".proto").replace("/", ".") + "_pb2")
    generated = descriptor_pb2.FileDescriptorProto()
    module.DESCRIPTOR.CopyToProto(generated)
    source = descriptor_pb2.FileDescriptorProto()
    source.CopyFrom(files[name])
    source.ClearField("source_code_info")
    # protoc fills json_name into descriptor sets but not into generated modules.
    stack = list(source.message_type)
    while stack:
        message = stack.pop()
        stack.extend(message.nested_type)
        for field in message.field:
            field.ClearField("json_name")
    assert generated == source, f"{name}: generated code is stale; run `make protos`"
