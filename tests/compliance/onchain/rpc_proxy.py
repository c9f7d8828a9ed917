"""A loopback JSON-RPC proxy in front of anvil, for the publisher's and the indexer's fault tests. It forwards each POST as is, and
can be told what to do to the requests of one method:

    with RpcProxy(anvil.url) as proxy:
        proxy.on("eth_sendRawTransaction", "drop", times=1)     # close the connection without an answer, once
        proxy.on("eth_getTransactionReceipt", "delay", seconds=3)  # answer late (after the client's timeout)
        proxy.on("eth_sendRawTransaction", "hang")               # forward it, then never answer (proxy.forwarded is set)
        proxy.on("eth_sendRawTransaction", "before", call=fn)     # call fn() first, then forward
        proxy.on("eth_getLogs", "reply", call=fn)                 # fn(request) -> (HTTP status, JSON body) answers it; None forwards
        proxy.clear()                                            # forward everything again
        proxy.count("eth_sendRawTransaction")                    # requests seen for a method

`times` None is every request until clear(). A batch request matches when any of its calls is of the method.
"""

import json
import threading
import urllib.request
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class RpcProxy:
    def __init__(self, upstream: str):
        self.upstream = upstream
        self.rules: dict[str, dict] = {}
        self.seen: Counter = Counter()
        self.forwarded = threading.Event()  # set when a "hang" request has been forwarded
        self.release = threading.Event()  # set to let hanging requests end (without an answer)
        self.lock = threading.Lock()
        self.server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def on(self, method: str, action: str, *, times: int | None = None, seconds: float = 0, call=None) -> None:
        assert action in ("drop", "delay", "hang", "before", "reply"), action
        if action == "hang":
            self.forwarded.clear()
            self.release.clear()
        with self.lock:
            self.rules[method] = {"action": action, "times": times, "seconds": seconds, "call": call}

    def clear(self) -> None:
        with self.lock:
            self.rules.clear()
        self.release.set()

    def count(self, method: str) -> int:
        return self.seen[method]

    def _rule_for(self, methods: list[str]) -> dict | None:
        with self.lock:
            for method in methods:
                self.seen[method] += 1
            for method in methods:
                rule = self.rules.get(method)
                if rule is None:
                    continue
                if rule["times"] is not None:
                    rule["times"] -= 1
                    if rule["times"] <= 0:
                        del self.rules[method]
                return rule
        return None

    def _forward(self, body: bytes) -> bytes:
        request = urllib.request.Request(self.upstream, data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.read()

    def start(self) -> "RpcProxy":
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    parsed = json.loads(body)
                except ValueError:
                    parsed = {}
                calls = parsed if isinstance(parsed, list) else [parsed]
                rule = proxy._rule_for([call.get("method", "") for call in calls if isinstance(call, dict)])
                action = rule["action"] if rule else "forward"
                if action == "drop":
                    self.close_connection = True
                    return
                if action == "delay":
                    threading.Event().wait(rule["seconds"])
                if action == "before":
                    rule["call"]()
                if action == "reply":
                    answered = rule["call"](parsed)
                    if answered is not None:
                        self._answer(*answered)
                        return
                answer = proxy._forward(body)
                if action == "hang":
                    proxy.forwarded.set()
                    proxy.release.wait(120)
                    self.close_connection = True
                    return
                self._answer(200, answer)

            def _answer(self, status: int, answer) -> None:
                answer = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                except OSError:  # the client gave up (a delay past its timeout)
                    self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.release.set()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def __enter__(self) -> "RpcProxy":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
