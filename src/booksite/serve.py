"""The built site served on 127.0.0.1, quietly, for a browser to open: one server for the PDF, tests and tools.

:func:`serve` starts a static HTTP server on a free loopback port in a
thread and yields its base address; the server stops when the ``with``
block ends. It logs nothing. :class:`QuietHandler` serves files as they
are; :class:`GzipHandler` also gzips text files when the browser accepts
it, as a static host does (``tools/lighthouse.py``). A tool that needs more
(``tools/measure_run.py`` counts the bytes sent) subclasses one of them.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import io
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: File types that :class:`GzipHandler` compresses (the others are already compressed, or binary).
COMPRESSIBLE = (".html", ".js", ".mjs", ".css", ".svg", ".json", ".txt", ".map", ".xml", ".ipynb")


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Static files, with no log line per request."""

    def log_message(self, *args):
        pass


class GzipHandler(QuietHandler):
    """Static files, gzip-compressed when the client accepts it (text types only)."""

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and path.is_file() and path.suffix in COMPRESSIBLE):
            return super().send_head()
        body = gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=3600")
        self.end_headers()
        return io.BytesIO(body)


@contextmanager
def serve(directory: str | Path, handler: type[http.server.BaseHTTPRequestHandler] = QuietHandler) -> Iterator[str]:
    """Serve ``directory`` on 127.0.0.1 at a free port while the block runs; yield its base URL.

    Examples
    --------
    >>> import pathlib, tempfile, urllib.request
    >>> site = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (site / "index.html").write_text("<p>hello</p>")
    >>> with serve(site) as base:
    ...     print(base.startswith("http://127.0.0.1:"), urllib.request.urlopen(base + "/index.html").read())
    True b'<p>hello</p>'
    """
    if not Path(directory).is_dir():
        raise ValueError(f"{directory} is not a folder: build the site first")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
