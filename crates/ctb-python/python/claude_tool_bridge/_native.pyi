"""Type stubs for the Rust extension module (hand-written; keep in step with src/lib.rs).

Every `str` argument must be encodable as UTF-8: a lone surrogate raises UnicodeEncodeError
before the call reaches Rust. Apart from that, nothing here raises except where a docstring
says so; a failure inside Rust gives the neutral answer instead (see `Session`)."""

from typing import Any, Literal

__version__: str

Outcome = Literal["translated", "prose", "discard", "untouched"]

class BridgeError(RuntimeError):
    """The bridge failed internally (never raised for a reply it merely cannot use)."""

class Catalog:
    """A set of tools the model may call, looked up by name."""

    def __init__(self) -> None: ...
    @staticmethod
    def from_text(text: str) -> Catalog:
        """JSON tool definitions or Agent Zero prompt text. Raises ValueError when unreadable."""
    @staticmethod
    def agent_zero() -> Catalog:
        """Agent Zero's built-in tools, bundled with the wheel."""
    def extend(self, other: Catalog) -> None:
        """Adds every tool of `other`; a later definition of a name replaces an earlier one."""
    def __len__(self) -> int: ...
    def __contains__(self, name: str) -> bool: ...

class Config:
    """The bridge's settings; `Config()` holds the defaults."""

    def __init__(self) -> None: ...
    @staticmethod
    def from_json(text: str) -> Config:
        """Raises ValueError for text that is not JSON or not a mapping; unknown keys and
        values of the wrong type only add to `warnings` (the key keeps its default)."""
    @staticmethod
    def from_yaml(text: str) -> Config:
        """As `from_json`, for YAML text (`default_config.yaml`)."""
    @staticmethod
    def from_dict(settings: dict[str, Any]) -> Config:
        """As `from_json`, for a dict (converted through JSON)."""
    @property
    def warnings(self) -> list[str]:
        """One line per unknown key or wrongly typed value found while loading."""
    def to_json(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...
    @property
    def enabled(self) -> bool: ...
    @property
    def models(self) -> list[str]: ...
    @property
    def early_stop(self) -> bool: ...
    @property
    def stop_sequence(self) -> bool: ...
    @property
    def loop_guard(self) -> bool: ...
    @property
    def prose_as_response(self) -> bool: ...
    @property
    def prose_min_chars(self) -> int: ...

class TurnPlan:
    """What the bridge asks for at the start of a turn."""

    @property
    def covered(self) -> bool:
        """Whether the chat model is covered by the configuration."""
    @property
    def stops(self) -> list[str]:
        """The full stop list for the provider: the model's own first, four at most."""

class Decision:
    """What to do with one finished reply."""

    @property
    def outcome(self) -> Outcome: ...
    @property
    def reply(self) -> str:
        """The exact text Agent Zero should see (the original reply when untouched)."""
    @property
    def request_json(self) -> str | None: ...
    @property
    def request(self) -> dict[str, Any] | None: ...
    @property
    def reason(self) -> str:
        """A short, stable code, e.g. `translated`, `no_call`, `loop`, `internal_error`."""
    @property
    def retry_without_stops(self) -> bool:
        """For a discard: ask again with the stop strings off."""

class Session:
    """One agent's bridge state, carried from turn to turn. Its methods never raise (for
    UTF-8-encodable text): an internal failure gives a plan that covers nothing, no early
    stop, or an `untouched` decision with reason `internal_error`."""

    def __init__(self, config: Config | None = None) -> None: ...
    def begin_turn(self, model_name: str, model_stops: list[str] = ...) -> TurnPlan: ...
    def feed(self, delta: str) -> str | None:
        """Feeds one streamed delta; returns the completed reply when the stream should stop."""
    def finish(self, reply: str, finish_reason: str | None, catalog: Catalog) -> Decision: ...

def translate(reply: str, catalog: Catalog, config: Config) -> Decision:
    """The stateless translation of one reply."""

def loads(text: str, partial: bool = False) -> Any:
    """The value of `text`, read tolerantly: JSON as language models write it (single quotes,
    unquoted keys, comments, trailing commas, Python literals, missing quotes and brackets,
    prose or a code fence around it). Objects are dicts (a repeated key keeps its first place
    and its last value), numbers are int (any size) or float.

    With `partial=True`, `text` is a stream cut off at its end (as jiter's
    `partial_mode="trailing-strings"`): what is complete is kept, an unfinished string as far
    as it goes, and an unfinished number, keyword, key or member is left out.

    Raises ValueError (one line, with line and column) when no value can be read."""

def repair_json(text: str) -> str:
    """`text` repaired into compact, valid JSON: the value `loads(text)` gives, as JSON text
    (`json.loads(repair_json(t)) == loads(t)`). Raises ValueError when no value can be read."""
