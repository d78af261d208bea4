"""``web.run``'s arguments as Codex reads them: serde into ``SearchCommands`` (``codex_api::search``).

Observed with the pinned binary (conformance ``seed_web_run_args_*``): unknown keys are
dropped at every level, a missing command is left out of the forwarded body, a JSON array
is read as the struct's fields in order (12 of them; the first takes a list), and every
error is serde_json's text with its position, given to the model as is. The field order is
the one the binary's descriptions follow; the twelfth field is not in the model-visible
spec and its name is not known here (it is never forwarded).
"""

from __future__ import annotations

import enum
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from ...protocol.serde import parse_exact

_OPEN = ConfigDict(defer_build=True, extra="ignore", frozen=True)


class _Struct(BaseModel):
    """A Rust struct of ``Option`` fields without ``#[serde(default)]``: a JSON object may leave one
    out (it reads as None), a JSON array may not (serde: ``invalid length``), so the fields stay
    required for the serde reader and missing ones are filled here."""

    model_config = _OPEN

    @model_validator(mode="before")
    @classmethod
    def _absent_is_none(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {name: data.get(name) for name in cls.model_fields} | data
        return data


class ResponseLength(enum.Enum):
    short = "short"
    medium = "medium"
    long = "long"


class AssetType(enum.Enum):
    equity = "equity"
    fund = "fund"
    crypto = "crypto"
    index = "index"


class SportsFunction(enum.Enum):
    schedule = "schedule"
    standings = "standings"


class League(enum.Enum):
    nba = "nba"
    wnba = "wnba"
    nfl = "nfl"
    nhl = "nhl"
    mlb = "mlb"
    epl = "epl"
    ncaamb = "ncaamb"
    ncaawb = "ncaawb"
    ipl = "ipl"


class SportsToolName(enum.Enum):
    sports = "sports"


class SearchQuery(_Struct):
    q: str
    recency: int | None
    domains: list[str] | None


class OpenOperation(_Struct):
    ref_id: str
    lineno: int | None


class ClickOperation(_Struct):
    ref_id: str
    id: int


class FindOperation(_Struct):
    ref_id: str
    pattern: str


class ScreenshotOperation(_Struct):
    ref_id: str
    pageno: int


class FinanceOperation(_Struct):
    ticker: str
    type: AssetType
    market: str | None


class WeatherOperation(_Struct):
    location: str
    start: str | None
    duration: int | None


class SportsOperation(_Struct):
    tool: SportsToolName | None
    fn: SportsFunction
    league: League
    team: str | None
    opponent: str | None
    date_from: str | None
    date_to: str | None
    num_games: int | None
    locale: str | None


class TimeOperation(_Struct):
    utc_offset: str


class SearchCommands(_Struct):
    search_query: list[SearchQuery] | None
    image_query: list[SearchQuery] | None
    open: list[OpenOperation] | None
    click: list[ClickOperation] | None
    find: list[FindOperation] | None
    screenshot: list[ScreenshotOperation] | None
    finance: list[FinanceOperation] | None
    weather: list[WeatherOperation] | None
    sports: list[SportsOperation] | None
    time: list[TimeOperation] | None
    response_length: ResponseLength | None
    unlisted: list[Any] | None
    """The binary's twelfth field: not in the spec, never forwarded."""


def read_commands(text: str) -> dict[str, Any]:
    """The commands Codex forwards (``SerdeError`` with serde_json's text when they do not parse)."""
    commands = parse_exact(SearchCommands, text)
    return commands.model_dump(mode="json", exclude_none=True, exclude={"unlisted"})
