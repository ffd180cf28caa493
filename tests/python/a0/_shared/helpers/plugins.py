"""Stand-in for Agent Zero's helpers/plugins.py: `get_plugin_config` returns a saved
config.json AS IT IS (no merge with the defaults) or else default_config.yaml, then lets the
plugin's hooks.py `get_plugin_config` adjust it; `call_plugin_hook` calls hooks.py."""

import importlib.util
import inspect
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAVED: dict = {}  # plugin name -> the dict a saved config.json holds
CALLS: list = []


def find_plugin_dir(name):
    for base in (ROOT / "usr" / "plugins", ROOT / "plugins"):
        if (base / name).is_dir():
            return base / name
    return None


def _hooks(name):
    folder = find_plugin_dir(name)
    if folder is None or not (folder / "hooks.py").is_file():
        return None
    spec = importlib.util.spec_from_file_location(f"a0hooks_{name}", folder / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def call_plugin_hook(name, hook_name, default=None, *args, **kwargs):
    CALLS.append((name, hook_name, kwargs))
    hooks = _hooks(name)
    hook = getattr(hooks, hook_name, None) if hooks else None
    if hook is None:
        return default
    params = inspect.signature(hook).parameters
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return hook(*args, default=default, **kwargs)
    accepted = {k: v for k, v in {"default": default, **kwargs}.items() if k in params}
    return hook(*args, **accepted)


def get_plugin_config(name, agent=None, project_name=None, agent_profile=None):
    if name in SAVED:
        result = dict(SAVED[name])
    else:
        folder = find_plugin_dir(name)
        if folder is None:
            return None
        import claude_tool_bridge

        text = (folder / "default_config.yaml").read_text()
        result = claude_tool_bridge.Config.from_yaml(text).to_dict()
    return call_plugin_hook(name, "get_plugin_config", default=result, agent=agent)
