"""The web server's settings, read by gunicorn from the working directory: `make run` (manage.py
serve), a production `gunicorn config.wsgi` started in the project folder, and the HTTP benchmarks
in bench/ all run with these.

gthread workers, 3 processes of 2 threads by default: on 2 cores this measured the most requests/s
for the compliance status look-ups and a shorter tail than 2 x 4 (fewer threads per process
contend less for the GIL), while a slow request (a PDF, a report) still leaves other threads free.
WEB_CONCURRENCY (processes) and WEB_THREADS (threads per process) change them; a command-line
option wins over this file.
"""

import gc
import os

from config import gunicorn_errors

gunicorn_errors.install()  # gunicorn's own refusals (a request line too long, bad headers) as JSON

worker_class = "gthread"
workers = int(os.environ.get("WEB_CONCURRENCY", 3))
threads = int(os.environ.get("WEB_THREADS", 2))


def post_worker_init(worker):
    """Move what every request keeps using (Django's apps, settings, URL patterns, views) out of the
    garbage collector's reach once the worker has loaded it. Without this, each full collection
    walked those ~150,000 objects again and held the GIL for 60-180 ms on a busy 2-core machine:
    the whole tail of the status look-ups' latency (bench/status.py, docs/onboarding.md). After
    gc.freeze() a full collection sees only objects made since, ~12,000."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 (imports every view module now rather than on the first request)
    gc.collect()
    gc.freeze()


# gunicorn's control socket (gunicornc) beside the service's other data rather than one shared
# path in $HOME, where two servers on one machine (make run and a benchmark) would collide.
control_socket = os.path.join(os.environ.get("DATA_DIR") or "var", "gunicorn.ctl")
