"""Stand-in for Agent Zero's helpers/extension.py: the same contract (extension folders of
the core and of every plugin, files run sorted by file name, a file name overrides the same
name elsewhere, `@extensible` start/end points with a `data` dict), none of its code."""

import importlib.util
import inspect
from functools import wraps
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_UNSET = object()
_classes_cache: dict = {}


class Extension:
    def __init__(self, agent, **kwargs):
        self.agent = agent
        self.kwargs = kwargs

    def execute(self, **kwargs):
        raise NotImplementedError


def _folders(point):
    folders = [ROOT / "extensions" / "python" / point]
    for base in (ROOT / "plugins", ROOT / "usr" / "plugins"):
        if base.is_dir():
            for plugin in sorted(base.iterdir()):
                folders.append(plugin / "extensions" / "python" / point)
    return folders


def _classes(point):
    if point in _classes_cache:
        return _classes_cache[point]
    found = {}
    for folder in _folders(point):
        if not folder.is_dir():
            continue
        for file in sorted(folder.glob("*.py")):
            if file.name in found:
                continue
            spec = importlib.util.spec_from_file_location(f"a0ext_{len(_classes_cache)}_{file.stem}_{abs(hash(str(file)))}", file)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            for obj in vars(module).values():
                if (
                    inspect.isclass(obj)
                    and issubclass(obj, Extension)
                    and obj is not Extension
                    and obj.__module__ == module.__name__
                ):
                    found[file.name] = obj
    classes = [found[name] for name in sorted(found)]
    _classes_cache[point] = classes
    return classes


async def call_extensions_async(point, agent=None, **kwargs):
    for cls in _classes(point):
        result = cls(agent=agent).execute(**kwargs)
        if inspect.isawaitable(result):
            await result


def call_extensions_sync(point, agent=None, **kwargs):
    for cls in _classes(point):
        result = cls(agent=agent).execute(**kwargs)
        if inspect.isawaitable(result):
            raise ValueError(f"{cls.__name__} returned an awaitable in sync mode")


def extensible(func):
    parts = [p for p in func.__module__.split(".") if p]
    qual = [p for p in func.__qualname__.split(".") if p and p != "<locals>"]
    base = "/".join(["_functions", *parts, *qual])

    @wraps(func)
    async def run(*args, **kwargs):
        agent = args[0] if args else None
        data = {"args": args, "kwargs": kwargs, "result": _UNSET, "exception": None}
        await call_extensions_async(base + "/start", agent=agent, data=data)
        if data["result"] is _UNSET:
            try:
                data["result"] = await func(*data["args"], **data["kwargs"])
            except Exception as exc:  # noqa: BLE001 - mirrors the real decorator
                data["exception"] = exc
        await call_extensions_async(base + "/end", agent=agent, data=data)
        if isinstance(data["exception"], BaseException):
            raise data["exception"]
        return None if data["result"] is _UNSET else data["result"]

    return run
