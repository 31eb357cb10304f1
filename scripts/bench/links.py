"""Far links for the bench: the simulators behind TLS and a round-trip time, as the real backends
are (a cloud server some tens of milliseconds away, HTTPS only).

The kernel here has no `netem`, so a small relay does it, in two layers on one asyncio loop:

    gateway --TLS--> delay relay (RTT) --> TLS terminator --plain--> simulator

- The delay relay holds every chunk for half the round trip in each direction, in order, so a
  request costs one round trip, a TLS 1.3 handshake one more; the first bytes a client sends on
  a new connection wait one round trip more, for the TCP handshake a local connect does not
  pay. A new connection therefore costs three round trips before the answer, a kept one one.
- The terminator speaks TLS with a certificate for 127.0.0.1 signed by a CA made for the run
  (`openssl`, in the work folder); the gateway is given that CA (`limits.upstream_ca_file`).
"""

from __future__ import annotations

import asyncio
import subprocess
import threading
import time
from pathlib import Path
import ssl


def make_ca(folder: Path) -> tuple[Path, Path, Path]:
    """A throwaway CA and a certificate for 127.0.0.1 signed by it: (ca.pem, cert.pem, key.pem)."""
    folder.mkdir(parents=True, exist_ok=True)
    ca_key, ca, key, csr, cert = (folder / n for n in ("ca-key.pem", "ca.pem", "key.pem", "cert.csr", "cert.pem"))
    ext = folder / "san.ext"
    ext.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n")

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
        "-subj", "/CN=daygate bench CA", "-keyout", str(ca_key), "-out", str(ca))
    run("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=127.0.0.1",
        "-keyout", str(key), "-out", str(csr))
    run("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial", "-days", "2",
        "-extfile", str(ext), "-out", str(cert))
    return ca, cert, key


class FarLinks:
    """For each target port, a TLS endpoint `rtt_ms` away: `port_for(target)` after `start()`."""

    def __init__(self, targets: list[int], rtt_ms: float, cert: Path, key: Path):
        self.targets = targets
        self.half = rtt_ms / 2000
        self.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.context.load_cert_chain(str(cert), str(key))
        self.ports: dict[int, int] = {}
        self.connections = 0
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.servers: list[asyncio.AbstractServer] = []

    def start(self) -> None:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(timeout=10)

    def stop(self) -> None:
        async def close() -> None:
            for server in self.servers:
                server.close()
            # The relays still pumping end here, on their loop, before it stops: left pending they
            # would be destroyed with the loop (and complain about it on stderr).
            pending = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        asyncio.run_coroutine_threadsafe(close(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()

    def port_for(self, target: int) -> int:
        return self.ports[target]

    async def _start(self) -> None:
        for target in self.targets:
            async def terminate(reader, writer, target=target) -> None:
                try:
                    up_reader, up_writer = await asyncio.open_connection("127.0.0.1", target)
                except OSError:
                    writer.close()
                    return
                await asyncio.gather(self._pump(reader, up_writer, 0), self._pump(up_reader, writer, 0))

            terminator = await asyncio.start_server(terminate, "127.0.0.1", 0, ssl=self.context)
            inner = terminator.sockets[0].getsockname()[1]

            async def delay(reader, writer, inner=inner) -> None:
                self.connections += 1
                try:
                    up_reader, up_writer = await asyncio.open_connection("127.0.0.1", inner)
                except OSError:
                    writer.close()
                    return
                await asyncio.gather(
                    self._pump(reader, up_writer, self.half, first_extra=2 * self.half),
                    self._pump(up_reader, writer, self.half))

            relay = await asyncio.start_server(delay, "127.0.0.1", 0)
            self.servers += [terminator, relay]
            self.ports[target] = relay.sockets[0].getsockname()[1]

    async def _pump(self, reader, writer, delay: float, first_extra: float = 0.0) -> None:
        """Copies `reader` to `writer`, each chunk `delay` seconds later than it arrived (in order)."""
        queue: asyncio.Queue = asyncio.Queue()

        async def send() -> None:
            while True:
                due, data = await queue.get()
                if data is None:
                    break
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                try:
                    writer.write(data)
                    await writer.drain()
                except (ConnectionError, OSError):
                    break
            try:
                writer.close()
            except Exception:  # noqa: BLE001 - closing a broken transport
                pass

        sender = asyncio.ensure_future(send())
        extra = first_extra
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                await queue.put((time.monotonic() + delay + extra, data))
                extra = 0.0
        except (ConnectionError, OSError, ssl.SSLError):
            pass
        await queue.put((0, None))
        await sender
