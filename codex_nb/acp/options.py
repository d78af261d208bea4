"""What an ACP agent lets the person choose for a session: its config options and its modes.

An agent describes its choices in ``configOptions`` (``session/new``, ``session/load``, the
``session/set_config_option`` response and ``config_option_update`` notifications), and the older
way, ``modes`` (ACP's v2 draft folds modes into config options of category ``mode``). This module
turns both into one bounded, read-only list of ``AgentOption`` so ``AcpSession.options`` and
``AcpSession.set_option`` work the same for every agent, and checks a value against the agent's
own choices before anything is sent. A peer is not trusted: the list, each option's choices and
every string are capped, and what was cut is said once as a note.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

MAX_OPTIONS = 64
"""Options kept per session; an agent that offers more has the rest dropped (and said so)."""

MAX_CHOICES = 256
"""Values kept per option."""

MAX_TEXT = 200
"""Characters kept of an id, a name or a value; a longer id or value drops its option or choice
(it could not be set faithfully), a longer name or description is shortened."""

MAX_DESCRIPTION = 500

MAX_NOTES = 5
"""Problems said per option list; more are counted in one last note."""

MODE_OPTION = "mode"
"""The id of the option made from an agent's ``modes`` when it offers no config option of
category ``mode`` (set through ``session/set_mode``)."""

_BOOLEAN_WORDS = {"true": True, "on": True, "yes": True, "false": False, "off": False, "no": False}


@dataclass(frozen=True)
class OptionChoice:
    """One value an option may take: ``value`` is what ``set_option`` takes, ``name`` what a person
    reads."""

    value: str
    name: str
    description: str | None = None
    group: str | None = None
    """The name of the agent's group this value is listed under, if it groups its values."""


@dataclass(frozen=True)
class AgentOption:
    """One of the agent's choices for the session, e.g. codex-acp's ``collaboration_mode``
    (``default`` / ``plan``), ``model``, ``reasoning_effort``, or Claude's ``mode``, ``effort``."""

    id: str
    name: str
    kind: Literal["select", "boolean"]
    current: str | bool
    """The value the agent last reported (a value of ``choices``, or a bool for a boolean option)."""
    choices: tuple[OptionChoice, ...] = ()
    """The values of a ``select`` option, as the agent lists them (empty for a boolean)."""
    category: str | None = None
    """ACP's category: ``mode``, ``model``, ``model_config``, ``thought_level``, or the agent's own."""
    description: str | None = None
    via: Literal["config_option", "mode"] = "config_option"
    """How it is set: ``session/set_config_option``, or ``session/set_mode`` for an agent that
    offers modes only."""

    def to_json(self) -> dict[str, Any]:
        """This option as a picker draws it (the ``options_updated`` event, the turn controls):
        ``id``, ``name``, ``kind``, ``current``, ``category`` and each choice's ``value``, ``name``
        and ``group``."""
        return {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "current": self.current,
            "category": self.category,
            "choices": [{"value": c.value, "name": c.name, "group": c.group} for c in self.choices],
        }

    @property
    def values(self) -> list[str | bool]:
        """The values ``set_option`` accepts for this option."""
        return [c.value for c in self.choices] if self.kind == "select" else [True, False]

    def check(self, value: Any) -> str | bool:
        """``value`` as the agent takes it, or ``ValueError`` saying what this option allows. A
        boolean option also takes ``"true"``/``"false"`` (``on``/``off``, ``yes``/``no``) as text."""
        if self.kind == "boolean":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in _BOOLEAN_WORDS:
                return _BOOLEAN_WORDS[value.strip().lower()]
        elif isinstance(value, str) and value in {c.value for c in self.choices}:
            return value
        raise ValueError(f"option {self.id!r} ({self.name}) has no value {value!r}; its values are {self.values}")


@dataclass(frozen=True)
class ParsedOptions:
    """The agent's options by id (in its order), and what had to be dropped or cut, one line each."""

    options: Mapping[str, AgentOption]
    notes: tuple[str, ...] = ()


def _text(value: Any, limit: int) -> str | None:
    if not isinstance(value, str):
        return None
    return value if len(value) <= limit else value[: limit - 3] + "..."


def _field(item: Any, name: str, alias: str) -> Any:
    """A field of an SDK model or of the raw dict (the SDK keeps unknown kinds as dicts)."""
    if isinstance(item, Mapping):
        return item.get(alias, item.get(name))
    return getattr(item, name, None)


def _category(item: Any) -> str | None:
    cat = _field(item, "category", "category")
    if isinstance(cat, str):
        return _text(cat, MAX_TEXT)
    root = getattr(cat, "root", None)  # the SDK wraps an agent's own category in a RootModel
    return _text(root, MAX_TEXT) if isinstance(root, str) else None


def _choices(raw: Any, option_id: str, notes: list[str]) -> tuple[OptionChoice, ...] | None:
    """The flattened values of a select option (groups kept as ``group``), capped at MAX_CHOICES."""
    if not isinstance(raw, (list, tuple)):
        notes.append(f"option {option_id!r} lists no values; it was dropped")
        return None
    out: list[OptionChoice] = []
    seen: set[str] = set()
    bad = cut = 0

    def add(entry: Any, group: str | None) -> None:
        nonlocal bad, cut
        value = _field(entry, "value", "value")
        if not isinstance(value, str) or not value or len(value) > MAX_TEXT or value in seen:
            bad += 1
            return
        if len(out) >= MAX_CHOICES:
            cut += 1
            return
        seen.add(value)
        name = _text(_field(entry, "name", "name"), MAX_TEXT) or value
        out.append(
            OptionChoice(value, name, _text(_field(entry, "description", "description"), MAX_DESCRIPTION), group)
        )

    for entry in raw[: MAX_CHOICES * 4]:
        nested = _field(entry, "options", "options")
        if nested is not None and _field(entry, "group", "group") is not None:
            group = _text(_field(entry, "name", "name"), MAX_TEXT) or _text(_field(entry, "group", "group"), MAX_TEXT)
            for sub in nested[: MAX_CHOICES * 4] if isinstance(nested, (list, tuple)) else ():
                add(sub, group)
        else:
            add(entry, None)
    cut += max(0, len(raw) - MAX_CHOICES * 4)
    if bad:
        notes.append(
            f"option {option_id!r}: {bad} values without a usable value (empty, too long or repeated) were dropped"
        )
    if cut:
        notes.append(f"option {option_id!r}: only its first {MAX_CHOICES} values are kept ({cut} more were dropped)")
    return tuple(out)


def _option(item: Any, notes: list[str]) -> AgentOption | None:
    option_id = _field(item, "id", "id")
    if not isinstance(option_id, str) or not option_id or len(option_id) > MAX_TEXT:
        notes.append(f"an option without a usable id ({str(option_id)[:40]!r}) was dropped")
        return None
    kind = _field(item, "type", "type")
    name = _text(_field(item, "name", "name"), MAX_TEXT) or option_id
    common: dict[str, Any] = {
        "id": option_id,
        "name": name,
        "category": _category(item),
        "description": _text(_field(item, "description", "description"), MAX_DESCRIPTION),
    }
    current = _field(item, "current_value", "currentValue")
    if kind == "boolean":
        if not isinstance(current, bool):
            notes.append(f"boolean option {option_id!r} has no true/false current value; it was dropped")
            return None
        return AgentOption(kind="boolean", current=current, **common)
    if kind != "select":
        notes.append(
            f"option {option_id!r} is of a kind this client does not know ({str(kind)[:40]!r}); it was dropped"
        )
        return None
    choices = _choices(_field(item, "options", "options"), option_id, notes)
    if not choices:
        if choices is not None:
            notes.append(f"option {option_id!r} offers no values; it was dropped")
        return None
    if not isinstance(current, str) or current not in {c.value for c in choices}:
        notes.append(f"option {option_id!r}: its current value {str(current)[:40]!r} is none of its values")
        current = str(current)[:MAX_TEXT] if current is not None else ""
    return AgentOption(kind="select", current=current, choices=choices, **common)


def parse_options(config_options: Iterable[Any] | None, modes: Any = None) -> ParsedOptions:
    """The options of ``configOptions`` (SDK models or dicts) and, when none of them is of category
    ``mode``, one ``mode`` option made of ``modes`` (an ACP ``SessionModeState``)."""
    notes: list[str] = []
    options: dict[str, AgentOption] = {}
    items = list(config_options or ())
    overflow = 0
    for index, item in enumerate(items):
        if len(options) >= MAX_OPTIONS or index >= MAX_OPTIONS * 4:
            overflow = len(items) - index
            break
        option = _option(item, notes)
        if option is None:
            continue
        if option.id in options:
            notes.append(f"option {option.id!r} is listed twice; the first is kept")
        else:
            options[option.id] = option
    if overflow:
        notes.insert(0, f"only the agent's first {MAX_OPTIONS} options are kept ({overflow} more were dropped)")
    if modes is not None and not any(o.category == "mode" for o in options.values()):
        mode = mode_option(modes, notes)
        if mode is not None and MODE_OPTION not in options:
            options[MODE_OPTION] = mode
    if len(notes) > MAX_NOTES:
        notes[MAX_NOTES:] = [
            f"{len(notes) - MAX_NOTES} more problems with the agent's options were handled the same way"
        ]
    return ParsedOptions(options, tuple(notes))


def mode_option(modes: Any, notes: list[str]) -> AgentOption | None:
    """The ``mode`` option made of an ACP ``SessionModeState`` (None if it lists no modes)."""
    available = getattr(modes, "available_modes", None) or ()
    choices = _choices(
        [{"value": m.id, "name": m.name, "description": m.description} for m in available], MODE_OPTION, notes
    )
    if not choices:
        return None
    current = getattr(modes, "current_mode_id", None)
    return AgentOption(
        id=MODE_OPTION,
        name="Mode",
        kind="select",
        current=current if isinstance(current, str) else "",
        choices=choices,
        category="mode",
        description="The agent's session mode (session/set_mode)",
        via="mode",
    )
