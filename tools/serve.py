"""Serve the built book on 127.0.0.1 until Ctrl+C or a signal; behind ``make serve``.

Usage: ``python tools/serve.py [--port 8000] [folder]`` (folder: ``_build/html``).

It says where the book is, logs each request as ``http.server`` does, and
when it is stopped (Ctrl+C, SIGINT or SIGTERM) it prints one line and exits
with status 0, so ``make`` has no error to report.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import signal
import sys
from pathlib import Path


class _Stop(BaseException):
    """Raised in the main thread by the signal handler. Not an ``Exception``: a signal that comes
    while the server hands a request to its thread would otherwise be caught by socketserver's
    ``except Exception`` there, printed as a failed request, and the server would go on serving."""


def _stop(signum, frame):
    raise _Stop(signal.Signals(signum).name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("folder", nargs="?", default="_build/html")
    args = parser.parse_args(argv)
    folder = Path(args.folder)
    if not (folder / "index.html").exists():
        print(f"{folder}/index.html is missing: build the book first (make html)", file=sys.stderr)
        return 1
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    except OSError as error:
        print(f"cannot serve on 127.0.0.1:{args.port} ({error.strerror}): choose another port, "
              f"e.g. make serve PORT={args.port + 1}", file=sys.stderr)
        return 1
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    print(f"Serving the book on http://127.0.0.1:{args.port}/ (Ctrl+C stops)", flush=True)
    try:
        server.serve_forever()
    except _Stop as stop:
        print(f"\nStopped serving the book ({stop}).", flush=True)
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
