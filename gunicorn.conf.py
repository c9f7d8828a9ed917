"""The web server's settings, read by gunicorn from the working directory: `make run` (manage.py
serve), a production `gunicorn config.wsgi` started in the project folder, and the HTTP benchmarks
in bench/ all run with these.

gthread workers, 3 processes of 2 threads by default: on 2 cores this measured the most requests/s
for the compliance status look-ups and a shorter tail than 2 x 4 (fewer threads per process
contend less for the GIL), while a slow request (a PDF, a report) still leaves other threads free.
WEB_CONCURRENCY (processes) and WEB_THREADS (threads per process) change them; a command-line
option wins over this file.
"""

import os

worker_class = "gthread"
workers = int(os.environ.get("WEB_CONCURRENCY", 3))
threads = int(os.environ.get("WEB_THREADS", 2))
