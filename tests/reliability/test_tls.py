"""validate_certs against an emulator serving HTTPS with a certificate of a private CA: the
default refuses it, validate_certs=false and the CA's bundle (REQUESTS_CA_BUNDLE) accept it; the
same for the inventory plugin. A REQUESTS_CA_BUNDLE in the environment must not undo
validate_certs=false."""

import datetime
import ipaddress
import json
import os
import subprocess

from cloudcompute_emulator.testing import run_emulator
from conftest import PLAYBOOKS, ansible_command, playbook_environment, report, run_playbook
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

# Where the system's CA bundle usually is; any readable bundle without our private CA will do.
SYSTEM_BUNDLES = ("/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem")


def write_pem(path, data):
    with open(path, "wb") as handle:
        handle.write(data)
    return str(path)


def private_ca(directory):
    """A CA, and a certificate it signed for 127.0.0.1: (ca bundle, certificate, key) paths."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "reliability test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    certificate = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    return (
        write_pem(directory / "ca.pem", ca.public_bytes(serialization.Encoding.PEM)),
        write_pem(directory / "server.pem", certificate.public_bytes(serialization.Encoding.PEM)),
        write_pem(
            directory / "server.key",
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            ),
        ),
    )


def system_bundle(directory):
    for path in SYSTEM_BUNDLES:
        if os.access(path, os.R_OK):
            return path
    # no system bundle here: another CA's certificate does just as well
    (directory / "other").mkdir()
    return private_ca(directory / "other")[0]


def inventory_hosts(emulator, workdir, validate_certs, bundle):
    config = workdir / "tls.cloudcompute.yml"
    config.write_text(
        "plugin: cloudcompute.cloud.cloudcompute\nvalidate_certs: %s\n" % ("true" if validate_certs else "false")
    )
    env = playbook_environment(emulator, workdir, {"REQUESTS_CA_BUNDLE": bundle})
    process = subprocess.run(
        [ansible_command("ansible-inventory"), "-i", str(config), "--list"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return process, (json.loads(process.stdout) if process.returncode == 0 and process.stdout.strip() else None)


def test_validate_certs_is_honoured(tmp_path):
    ca_bundle, certificate, key = private_ca(tmp_path)
    other_bundle = system_bundle(tmp_path)
    with run_emulator(profile="test", ssl_certfile=certificate, ssl_keyfile=key) as emulator:
        emulator.control.seed(instances=2, hostname_prefix="tls")
        run = run_playbook(
            PLAYBOOKS / "tls.yml",
            emulator,
            tmp_path,
            extra_vars={"tls_ca_bundle": ca_bundle, "tls_system_bundle": other_bundle},
        )
        refused, nothing = inventory_hosts(emulator, tmp_path, True, other_bundle)
        accepted, unchecked = inventory_hosts(emulator, tmp_path, False, other_bundle)

    assert run.returncode == 0 and not [entry for entry in run.failed if entry["outcome"] != "ignored"], (
        run.describe_failures()
    )
    assert "TLS verification failed" in refused.stderr and not (nothing or {}).get("_meta", {}).get("hostvars"), (
        refused.stderr[-3000:]
    )
    assert unchecked is not None and len(unchecked["_meta"]["hostvars"]) == 2, accepted.stderr[-3000:]
    report(
        "TLS",
        "private CA certificate: refused by default (modules and inventory), accepted with "
        "validate_certs=false (REQUESTS_CA_BUNDLE set elsewhere) and with the CA bundle",
    )
