"""Type stubs for the Rust extension module (hand-written; keep in step with src/lib.rs).

Every `str` argument must be encodable as UTF-8: a lone surrogate raises UnicodeEncodeError
before the call reaches Rust. Apart from that, nothing here raises except where a docstring
says so; a failure inside Rust gives the neutral answer instead (see `Session`)."""

from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypedDict, final

__all__ = [
    "BridgeError",
    "Catalog",
    "Config",
    "Decision",
    "Echoes",
    "MAX_ECHO_BYTES",
    "Session",
    "TurnPlan",
    "__version__",
    "first_call",
    "loads",
    "repair_json",
    "translate",
]

__version__: str

MAX_ECHO_BYTES: int
"""Most bytes of normalised text an `Echoes` index holds."""

_Outcome = Literal["translated", "prose", "discard", "untouched"]

class _ToolCall(TypedDict):
    """A call read by `first_call`."""

    family: str
    name: str
    arguments: dict[str, Any]
    prose: str
    span: list[int]

class BridgeError(RuntimeError):
    """The bridge failed internally (never raised for a reply it merely cannot use)."""

@final
class Catalog:
    """A set of tools the model may call, looked up by name."""

    def __new__(cls) -> Catalog: ...
    @staticmethod
    def from_text(text: str) -> Catalog:
        """JSON tool definitions or Agent Zero prompt text. Raises ValueError when unreadable."""
    @staticmethod
    def agent_zero() -> Catalog:
        """Agent Zero's built-in tools, bundled with the wheel."""
    def extend(self, other: Catalog) -> None:
        """Adds every tool of `other`; a later definition of a name replaces an earlier one.
        `other` may be this catalog itself."""
    def __len__(self) -> int: ...
    def __contains__(self, key: str, /) -> bool: ...

@final
class Config:
    """The bridge's settings; `Config()` holds the defaults."""

    def __new__(cls) -> Config: ...
    @staticmethod
    def from_json(text: str) -> Config:
        """The defaults with the settings of `text` laid over them. Raises ValueError for
        text that is not JSON or not a mapping; unknown keys and unusable values only add to
        `warnings`. An unusable value falls back for its own key, never towards doing more:
        `enabled` that is not true or false is off, `models` that is no list covers no
        model, a bad item of `models` is left out, every other key keeps its default. Blank
        text gives the defaults."""
    @staticmethod
    def from_yaml(text: str) -> Config:
        """As `from_json`, for YAML text (`default_config.yaml`)."""
    @staticmethod
    def from_dict(settings: Mapping[str, Any]) -> Config:
        """As `from_json`, for a dict, read key by key: a value that is not a JSON value
        (NaN or infinity, an object, a dict holding itself) is an unusable value of its own
        key only. Raises ValueError only when `settings` is not a dict."""
    @property
    def warnings(self) -> list[str]:
        """One line per unknown key or unusable value found while loading, saying what is
        used instead."""
    def to_json(self) -> str:
        """Every setting as JSON text, defaults included."""
    def to_dict(self) -> dict[str, Any]:
        """Every setting as a new dict, defaults included."""
    def overrides(self) -> dict[str, Any]:
        """Only the settings that differ from the defaults (what is worth saving)."""
    @property
    def enabled(self) -> bool: ...
    @property
    def models(self) -> list[str]: ...
    @property
    def families(self) -> dict[str, list[str]]:
        """Each family's model name patterns (a new dict on every access)."""
    def family_of(self, model: str) -> str | None:
        """The family of `model` by the family patterns, or None when none matches (such a
        model gets Claude's stop strings and is read for every markup form)."""
    @property
    def all_forms(self) -> bool:
        """Read every family's markup in every model's replies (off: a model reads its own
        family's forms, another family's syntax is a quotation)."""
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

@final
class TurnPlan:
    """What the bridge asks for at the start of a turn."""

    @property
    def covered(self) -> bool:
        """Whether the chat model is covered by the configuration."""
    @property
    def stops(self) -> list[str]:
        """The full stop list for the provider: the model's own stops first, every one of
        them; the bridge adds its own only while the list holds fewer than four."""

@final
class Decision:
    """What to do with one finished reply."""

    @property
    def outcome(self) -> _Outcome: ...
    @property
    def reply(self) -> str:
        """The exact text Agent Zero should see (the original reply when untouched)."""
    @property
    def request(self) -> dict[str, Any] | None:
        """The tool request as a new dict on every access, or None."""
    @property
    def reason(self) -> str:
        """A short, stable code, e.g. `translated`, `no_call`, `loop`, `internal_error`."""
    @property
    def retry_without_stops(self) -> bool:
        """For a discard: ask again with the stop strings off."""
    @property
    def family(self) -> str | None:
        """The markup family of the call the decision rests on (`claude`, `minimax`,
        `deepseek_dsml`, `step3`, `grok`, `qwen3_coder`, `glm`, `hermes`, `kimi`,
        `deepseek`, `harmony`), or None."""
    @property
    def prose(self) -> str | None:
        """For a translation: the text before the call as written (the residue word and the
        white space before the call excluded; may be ""), else None."""

@final
class Echoes:
    """The texts the agent received and the model did not write (tool results, fetched
    pages, documents, messages): a call copied from one of them is a quotation, and the
    decision is `untouched` with reason `echoed`. Texts are compared modulo white space, the
    namespace prefix and the HTML entities of <, >, ", ' and &. Add the most recent first:
    past `MAX_ECHO_BYTES` of normalised text the rest is not indexed."""

    def __new__(cls, texts: Iterable[str] | None = None) -> Echoes: ...
    def add(self, text: str) -> None: ...
    def __contains__(self, markup: str, /) -> bool:
        """Whether `markup` appears in one of the texts (as the bridge compares them)."""
    def __len__(self) -> int:
        """Texts indexed (blank ones are not counted)."""
    @property
    def indexed_bytes(self) -> int: ...
    @property
    def skipped_bytes(self) -> int:
        """Bytes of the texts given that were not indexed because the index was full."""

@final
class Session:
    """One agent's bridge state, carried from turn to turn. An internal failure never raises
    (for UTF-8-encodable text): it gives a plan that covers nothing, no early stop, or an
    `untouched` decision with reason `internal_error`. Calling `finish` without an open turn
    is a usage error and raises `BridgeError`."""

    def __new__(cls, config: Config | None = None) -> Session: ...
    def begin_turn(
        self, model_name: str, model_stops: list[str] = ..., echoes: Echoes | None = None
    ) -> TurnPlan:
        """Starts a turn for `model_name` (its family picks the stop strings and the markup
        forms read) whose own stop list is `model_stops`; `echoes` are the texts the agent
        received this conversation."""
    def feed(self, delta: str, catalog: Catalog) -> str | None:
        """Feeds one streamed delta (or several joined). Returns the text to hand on when the
        stream should stop now: the first call is complete and translates with `catalog`.
        Only a call that ends in a `>` stops the stream: deltas without one may be joined and
        fed later."""
    def advance(self, delta: str, catalog: Catalog) -> tuple[str | None, int]:
        """As `feed`, but every delta is scanned, and the second item is how many characters
        at the start of the text fed this turn are settled: never part of the first call's
        markup, nor the residue word or white space before it. It never decreases; when the
        turn is translated, `Decision.prose` starts with the settled text. A host that
        passes text on as it arrives can release that much at once."""
    def finish(self, reply: str, finish_reason: str | None, catalog: Catalog) -> Decision:
        """Decides about the finished reply (the text `feed` returned, or the whole reply).
        Raises `BridgeError` when no turn is open: `begin_turn` was not called for this
        request, or `finish` was already called for it."""

def translate(
    reply: str, catalog: Catalog, *, model: str | None = None, echoes: Echoes | None = None
) -> Decision:
    """The stateless translation of one reply. With `model`, only the markup forms of its
    family are calls (another family's syntax is a quotation); without, every form is read.
    A call copied from `echoes` is left alone (reason `echoed`). A call whose arguments hold
    an integer of more than 4,300 digits (more than Python reads from text, so more than
    Agent Zero's `json` module reads) is not translated: the decision is `untouched` with
    reason `bad_argument`, and `request` is None. The same holds for `Session.finish` and
    `first_call`."""

def first_call(
    reply: str, catalog: Catalog, *, model: str | None = None, echoes: Echoes | None = None
) -> _ToolCall | None:
    """The first usable call of `reply` by the rules `translate` follows, without Agent
    Zero's request shape (for other harnesses): its family, the tool name, the arguments
    typed by the catalog, the prose before it, and `span`, the call's start and end indices
    in `reply`. None when the reply holds no usable call."""

def loads(text: str, partial: bool = False) -> Any:
    """The value of `text`, read tolerantly: JSON as language models write it (single quotes,
    unquoted keys, comments, trailing commas, Python literals, missing quotes and brackets,
    prose or a code fence around it). Objects are dicts (a repeated key keeps its first place
    and its last value), numbers are int (any size) or float.

    With `partial=True`, `text` is a stream cut off at its end (as jiter's
    `partial_mode="trailing-strings"`): what is complete is kept, an unfinished string as far
    as it goes, and an unfinished number, keyword, key or member is left out.

    Raises ValueError (one line, with line and column) when no value can be read, and, as
    `json.loads` does, Python's own ValueError ("Exceeds the limit (4300 digits) for integer
    string conversion ...") for an integer longer than `sys.get_int_max_str_digits()`."""

def repair_json(text: str) -> str:
    """`text` repaired into compact, valid JSON: the value `loads(text)` gives, as JSON text
    (`json.loads(repair_json(t)) == loads(t)`). Raises ValueError when no value can be read."""
