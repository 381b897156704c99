"""SMTP over TLS verifies the server: a real aiosmtpd server with a certificate
made here is refused until its CA is configured in SMTP_TLS_CA_FILE."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from pydantic import ValidationError

from app.services.mail import MailError, send_email
from app.settings import Settings
from tests.mailbox import Mailbox
from tests.ports import free_port


def _self_signed(directory: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for ``name`` (and 127.0.0.1 when name is localhost): (cert, key) PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    alt_names: list[x509.GeneralName] = [x509.DNSName(name)]
    if name == "localhost":
        alt_names.append(x509.IPAddress(ipaddress.ip_address("127.0.0.1")))
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / f"{name}.crt", directory / f"{name}.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


def _server_context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


def _start(**tls) -> tuple[Controller, Mailbox]:
    mailbox = Mailbox()
    controller = Controller(mailbox, hostname="127.0.0.1", port=free_port(), **tls)
    controller.start()
    return controller, mailbox


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> tuple[Path, Path]:
    return _self_signed(tmp_path_factory.mktemp("tls"), "localhost")


@pytest.fixture
def starttls_server(certificate) -> Iterator[tuple[int, Mailbox]]:
    """A server that accepts mail only after STARTTLS."""
    controller, mailbox = _start(tls_context=_server_context(*certificate), require_starttls=True)
    yield controller.port, mailbox
    controller.stop()


def _settings(port: int, **changes) -> Settings:
    return Settings(_env_file=None, smtp_host="127.0.0.1", smtp_port=port, smtp_starttls=True, **changes)


def test_starttls_refuses_a_server_whose_certificate_is_not_trusted(starttls_server):
    port, mailbox = starttls_server
    with pytest.raises(MailError, match="No pudimos enviar el correo") as raised:
        send_email(to="ana@correo.cl", subject="Confirma tu correo", body="Enlace", settings=_settings(port))
    assert isinstance(raised.value.__cause__, ssl.SSLCertVerificationError)
    assert mailbox.to("ana@correo.cl") == []


def test_starttls_delivers_when_the_private_ca_is_configured(starttls_server, certificate):
    port, mailbox = starttls_server
    settings = _settings(port, smtp_tls_ca_file=str(certificate[0]))
    send_email(to="bea@correo.cl", subject="Confirma tu correo", body="Enlace", settings=settings)
    [message] = mailbox.to("bea@correo.cl")
    assert message["Subject"] == "Confirma tu correo"


def test_a_trusted_certificate_for_another_name_is_refused(tmp_path):
    other = _self_signed(tmp_path, "correo.otro-sitio.cl")
    controller, mailbox = _start(tls_context=_server_context(*other), require_starttls=True)
    try:
        with pytest.raises(MailError) as raised:
            settings = _settings(controller.port, smtp_tls_ca_file=str(other[0]))
            send_email(to="eva@correo.cl", subject="x", body="y", settings=settings)
        assert "mismatch" in str(raised.value.__cause__)
        assert mailbox.to("eva@correo.cl") == []
    finally:
        controller.stop()


def test_implicit_tls_verifies_the_certificate_too(certificate):
    controller, mailbox = _start(ssl_context=_server_context(*certificate))
    try:
        with pytest.raises(MailError):
            send_email(to="ines@correo.cl", subject="x", body="y", settings=_settings(controller.port, smtp_ssl=True))
        settings = _settings(controller.port, smtp_ssl=True, smtp_tls_ca_file=str(certificate[0]))
        send_email(to="ines@correo.cl", subject="Hola", body="y", settings=settings)
        assert [m["Subject"] for m in mailbox.to("ines@correo.cl")] == ["Hola"]
    finally:
        controller.stop()


def test_a_missing_ca_file_is_refused_at_start(tmp_path):
    with pytest.raises(ValidationError, match="SMTP_TLS_CA_FILE"):
        Settings(_env_file=None, smtp_tls_ca_file=str(tmp_path / "no-existe.pem"))
