"""An HTTPS proxy on loopback that plays the internet for claude's WebFetch.

claude 2.1.332 fetches a page only after asking `https://api.anthropic.com/api/web/domain_info`
whether the domain may be fetched (and it turns `http:` into `https:`). There is no internet
here, so a test points `HTTPS_PROXY` at this proxy and trusts its certificate authority with
`NODE_EXTRA_CA_CERTS`: it answers the domain check with `can_fetch: true` and records every
other request it is asked to carry, which stands for an attacker's server receiving what the
model put in the URL.

The certificates are made with the `openssl` command line once per test session.
"""

from __future__ import annotations

import json
import select
import socket
import ssl
import subprocess
import threading
from pathlib import Path

DOMAIN_CHECK_HOST = "api.anthropic.com"
ATTACKER_HOST = "attacker.example"


def make_certificates(directory: Path) -> tuple[Path, Path, Path]:
    """A CA (`ca.pem`) and a certificate for both hosts signed by it (`leaf.pem`, `leaf.key`)."""
    directory.mkdir(parents=True, exist_ok=True)
    ca_key, ca = directory / "ca.key", directory / "ca.pem"
    key, request, leaf = directory / "leaf.key", directory / "leaf.csr", directory / "leaf.pem"
    extensions = directory / "leaf.ext"
    extensions.write_text(
        f"subjectAltName=DNS:{DOMAIN_CHECK_HOST},DNS:{ATTACKER_HOST}\n"
        "basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
    )

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key), "-out",
        str(ca), "-days", "2", "-subj", "/CN=toolgate e2e CA")  # fmt: skip
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(request),
        "-subj", f"/CN={ATTACKER_HOST}")  # fmt: skip
    run("x509", "-req", "-in", str(request), "-CA", str(ca), "-CAkey", str(ca_key),
        "-CAcreateserial", "-out", str(leaf), "-days", "2",
        "-extfile", str(extensions))  # fmt: skip
    return ca, leaf, key


class MitmProxy:
    """`HTTPS_PROXY` for one test: CONNECT, then TLS with the test's certificate, then one
    HTTP request answered. `carried` lists (host, request line) for every request but the
    domain check."""

    def __init__(self, leaf: Path, key: Path) -> None:
        self.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.context.load_cert_chain(str(leaf), str(key))
        self.carried: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        self._server = socket.create_server(("127.0.0.1", 0))
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._stop = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.getsockname()[1]}"

    def __enter__(self) -> MitmProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._server.close()
        self._thread.join(timeout=5)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self._server], [], [], 0.2)
                if not ready:
                    continue
                client, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(client,), daemon=True).start()

    def _handle(self, client: socket.socket) -> None:
        with client:
            try:
                head = _read_head(client)
                host = head.split(b" ")[1].decode().rpartition(":")[0]
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                with self.context.wrap_socket(client, server_side=True) as tls:
                    request = _read_head(tls).decode("utf-8", "replace")
                    line = request.split("\r\n", 1)[0]
                    if host == DOMAIN_CHECK_HOST and "/api/web/domain_info" in line:
                        body = json.dumps({"domain": host, "can_fetch": True}).encode()
                        kind = b"application/json"
                    else:
                        with self._lock:
                            self.carried.append((host, line))
                        body, kind = b"<html><body>fetched</body></html>", b"text/html"
                    tls.sendall(
                        b"HTTP/1.1 200 OK\r\nContent-Type: " + kind + b"\r\nContent-Length: "
                        + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body
                    )  # fmt: skip
            except (OSError, IndexError, ValueError):
                return


def _read_head(connection: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data and len(data) < 65536:
        chunk = connection.recv(4096)
        if not chunk:
            break
        data += chunk
    return data
