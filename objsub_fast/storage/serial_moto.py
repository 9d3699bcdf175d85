"""moto's S3 server with one request handled at a time, as ``LocalS3`` runs it.

S3 makes a conditional write atomic: of eight ``PUT``s with ``If-None-Match: *`` racing for one
key exactly one succeeds. moto's threaded server checks the condition and then writes, in two
steps with no lock between them, so two racers can both pass the check and both "create" the
object. Serving each request under one lock gives the atomicity S3 promises (the server still
keeps many connections open, so pooled clients do not wait on each other's idle connections).

Run as ``python -m objsub_fast.storage.serial_moto HOST PORT``.
"""
from __future__ import annotations

import os
import signal
import sys
import threading

__all__ = ["serialised"]


def serialised(app):
    """The WSGI application ``app`` with its calls made one at a time.

    Examples
    --------
    >>> calls = []
    >>> app = serialised(lambda environ, start: calls.append(environ) or [b"ok"])
    >>> app({"PATH_INFO": "/"}, None), len(calls)
    ([b'ok'], 1)
    """
    lock = threading.Lock()

    def one_at_a_time(environ, start_response):
        with lock:   # the body is made under the lock too, and the response closed
            response = app(environ, start_response)
            try:
                return list(response)
            finally:
                if hasattr(response, "close"):
                    response.close()

    return one_at_a_time


def main(host: str, port: int) -> None:
    """Serve moto's S3 (and the rest of its backends) on ``host``:``port`` until terminated."""
    from moto.moto_server.werkzeug_app import (DomainDispatcherApplication,
                                               MotoRequestHandler, create_backend_app)
    from werkzeug.serving import run_simple

    os.environ.setdefault("MOTO_PORT", str(port))  # moto names its own address with it
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    app = DomainDispatcherApplication(create_backend_app)
    run_simple(host, port, serialised(app), threaded=True, request_handler=MotoRequestHandler)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
