"""Stand-in for Agent Zero's helpers/plugins.py (the same in v1.7, v2.6 and the newest):

- `get_plugin_config` returns a saved config.json AS IT IS (no merge with the defaults), or
  else default_config.yaml read by Agent Zero's own YAML loader, then lets the plugin's
  hooks.py `get_plugin_config` adjust it;
- `save_plugin_config` lets hooks.py `save_plugin_config` decide what is written;
- `get_default_plugin_config` ("Reset to default" in the settings screen) reads
  default_config.yaml;
- `call_plugin_hook` calls hooks.py with the arguments its signature takes."""

import copy
import importlib.util
import json
import inspect
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SAVED: dict = {}  # plugin name -> the dict a saved config.json holds
CALLS: list = []


class Unparsable:
    """A saved config.json whose text is not JSON: reading it raises, as Agent Zero's does."""

    def __init__(self, text="{"):
        self.text = text

    def read(self):
        return json.loads(self.text)


def read_saved(name):
    saved = SAVED[name]
    return saved.read() if isinstance(saved, Unparsable) else copy.copy(saved)


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


def get_default_plugin_config(name):
    folder = find_plugin_dir(name)
    if folder is None:
        return None
    return yaml.safe_load((folder / "default_config.yaml").read_text())


def get_plugin_config(name, agent=None, project_name=None, agent_profile=None):
    if name in SAVED:
        result = read_saved(name)  # what json.loads made of config.json: any JSON value
    else:
        result = get_default_plugin_config(name)
        if result is None:
            return None
    return call_plugin_hook(name, "get_plugin_config", default=result, agent=agent,
                            project_name=project_name, agent_profile=agent_profile)


def save_plugin_config(name, project_name, agent_profile, settings):
    stored = call_plugin_hook(name, "save_plugin_config", default=settings,
                              project_name=project_name, agent_profile=agent_profile,
                              settings=settings)
    if stored is not None:
        SAVED[name] = stored
