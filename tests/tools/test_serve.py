"""``make serve`` (tools/serve.py): says where the book is, and stops with one line and status 0."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

SERVE = Path(__file__).resolve().parents[2] / "tools" / "serve.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_serve_answers_then_stops_with_one_line_and_status_zero(tmp_path, stop):
    (tmp_path / "index.html").write_text("the book", encoding="utf-8")
    port = free_port()
    server = subprocess.Popen([sys.executable, str(SERVE), "--port", str(port), str(tmp_path)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdout.readline().strip() == f"Serving the book on http://127.0.0.1:{port}/ (Ctrl+C stops)"
        for _ in range(50):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as answer:
                    assert answer.read() == b"the book"
                break
            except OSError:
                time.sleep(0.1)
        server.send_signal(stop)
        out, err = server.communicate(timeout=10)
    finally:
        if server.poll() is None:
            server.kill()
    assert server.returncode == 0
    assert out.strip() == f"Stopped serving the book ({stop.name})."
    assert "Traceback" not in err


def test_serve_names_what_is_missing(tmp_path):
    result = subprocess.run([sys.executable, str(SERVE), str(tmp_path)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 1 and "make html" in result.stderr
