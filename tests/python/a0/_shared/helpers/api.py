"""Stand-in for Agent Zero's helpers/api.py (the same contract in v1.7, v2.6 and the newest):
an API handler is a class with `async process(input, request)` returning a dict (sent as
JSON) or a Response; a plugin's `api/<name>.py` is served at `/api/plugins/<plugin>/<name>`
(`load_handler` finds its class the way Agent Zero does: the module's subclass of
ApiHandler)."""

import importlib.util
import inspect
from pathlib import Path


class Request:
    pass


class Response:
    def __init__(self, response="", status=200, mimetype="text/plain"):
        self.response = response
        self.status = status
        self.mimetype = mimetype


class ApiHandler:
    def __init__(self, app=None, thread_lock=None):
        self.app = app
        self.thread_lock = thread_lock

    @classmethod
    def requires_auth(cls):
        return True

    async def process(self, input, request):
        raise NotImplementedError


def load_handler(path: Path):
    spec = importlib.util.spec_from_file_location(f"a0api_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = [cls for _, cls in inspect.getmembers(module, inspect.isclass)
             if cls is not ApiHandler and issubclass(cls, ApiHandler)]
    return found[-1] if found else None
