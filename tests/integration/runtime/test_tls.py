"""TLS and mutual TLS are configuration: the same server and client code, PEM files in env."""

from __future__ import annotations

import datetime as dt
import ipaddress
from pathlib import Path

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from services.shared import auth
from services.shared.channels import connect
from services.shared.grpc_server import create_server
from services.shared.healthcheck import is_serving
from services.shared.settings import RuntimeSettings, TlsSettings

from .conftest import KEY, SERVICE, SPEC

pytestmark = pytest.mark.integration


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _issue(
    subject: str,
    issuer_key: ec.EllipticCurvePrivateKey | None,
    issuer_name: x509.Name | None,
    *,
    ca: bool = False,
) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(issuer_name or _name(subject))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if not ca:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
    cert = builder.sign(issuer_key or key, hashes.SHA256())
    return key, cert


def _write(path: Path, key: ec.EllipticCurvePrivateKey, cert: x509.Certificate) -> tuple[str, str]:
    cert_path, key_path = path.with_suffix(".crt"), path.with_suffix(".key")
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return str(cert_path), str(key_path)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("pki")
    ca_key, ca_cert = _issue("croupier test CA", None, None, ca=True)
    ca_path, _ = _write(root / "ca", ca_key, ca_cert)
    server = _write(root / "server", *_issue("dealer", ca_key, ca_cert.subject))
    client = _write(root / "client", *_issue("table", ca_key, ca_cert.subject))
    return {
        "ca": ca_path,
        "server_cert": server[0],
        "server_key": server[1],
        "client_cert": client[0],
        "client_key": client[1],
    }


def _server_settings(pki: dict[str, str], *, mutual: bool) -> RuntimeSettings:
    env = {
        "CROUPIER_AUTH_KEY": KEY,
        "CROUPIER_TLS_CERT": pki["server_cert"],
        "CROUPIER_TLS_KEY": pki["server_key"],
    }
    if mutual:
        env["CROUPIER_TLS_CLIENT_CA"] = pki["ca"]
    return RuntimeSettings.from_env("probe", 0, env=env)


def _client_tls(pki: dict[str, str], *, with_cert: bool) -> TlsSettings:
    env = {"CROUPIER_TLS_CA": pki["ca"]}
    if with_cert:
        env |= {"CROUPIER_TLS_CERT": pki["client_cert"], "CROUPIER_TLS_KEY": pki["client_key"]}
    return TlsSettings.from_env(env)


def _whoami(channel: grpc.Channel) -> bytes:
    # No (de)serializers: the call sends and returns raw bytes.
    whoami: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(f"/{SERVICE}/Whoami")
    return whoami(b"", timeout=5)


def test_tls_server_serves_a_client_that_trusts_its_ca_and_refuses_plaintext(
    pki: dict[str, str],
) -> None:
    server, port = create_server(SPEC, _server_settings(pki, mutual=False))
    try:
        token = auth.issue_token(KEY, "tls-user", auth.Role.PLAYER, 60)
        tls = _client_tls(pki, with_cert=False)
        with connect(f"127.0.0.1:{port}", token, tls=tls) as channel:
            assert _whoami(channel) == b"tls-user/player"
        assert is_serving(f"127.0.0.1:{port}", SERVICE, tls=tls)
        with connect(f"127.0.0.1:{port}", token) as plaintext, pytest.raises(grpc.RpcError):
            _whoami(plaintext)
    finally:
        server.stop(0).wait()


def test_mutual_tls_refuses_a_client_without_a_certificate(pki: dict[str, str]) -> None:
    server, port = create_server(SPEC, _server_settings(pki, mutual=True))
    try:
        token = auth.issue_token(KEY, "svc", auth.Role.SERVICE, 60)
        address = f"127.0.0.1:{port}"
        with connect(address, token, tls=_client_tls(pki, with_cert=True)) as channel:
            assert _whoami(channel) == b"svc/service"
        with connect(address, token, tls=_client_tls(pki, with_cert=False)) as anonymous:
            with pytest.raises(grpc.RpcError) as info:
                _whoami(anonymous)
            assert info.value.code() is grpc.StatusCode.UNAVAILABLE
    finally:
        server.stop(0).wait()
