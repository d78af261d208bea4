"""Run-dependent paths in a recorded conversation: placeholders on the way in, this run's paths
on the way out, and a new temporary folder learned from what codex_nb sends."""

from __future__ import annotations

import os
import tempfile

from codex_nb._secrets import secret_values
from codex_nb.cassettes.places import Places
from codex_nb.cassettes.scrub import Scrubber


def _places(**named: str) -> Places:
    return Places(named=named, scrubber=Scrubber(secrets=["sk-secret-0123456789"]))


def test_a_cwd_tag_in_codex_prompt_text_survives_the_round_trip() -> None:
    """Codex's environment context writes ``<cwd>PATH</cwd>``: the placeholder must not be ``<cwd>``."""
    recorded = _places(cwd="/work/old/notebooks").to_cassette("<cwd>/work/old/notebooks</cwd>\\n<root>/work/old</root>")
    assert "/work/old" not in recorded.replace("<root>/work/old</root>", "")
    replayed = _places(cwd="/ci/clone/notebooks").from_cassette(recorded)
    assert replayed.startswith("<cwd>/ci/clone/notebooks</cwd>\\n")


def test_a_new_temporary_folder_is_learned_from_what_codex_nb_sends() -> None:
    tmp = tempfile.gettempdir()
    recording = _places()
    sent = recording.to_cassette({"cwd": f"{tmp}/work-abc123", "text": "key sk-secret-0123456789"})
    assert sent == {"cwd": "<codex_nb:tmp1>", "text": "key ***"}
    replay = _places()
    replay.learn(sent, {"cwd": f"{tmp}/work-zzz999"})
    assert replay.normalise({"cwd": f"{tmp}/work-zzz999"}) == {"cwd": "<codex_nb:tmp1>"}
    assert replay.from_cassette({"path": "<codex_nb:tmp1>/notes.txt"}) == {"path": f"{tmp}/work-zzz999/notes.txt"}


def test_secret_named_variables_are_scrubbed_and_short_values_are_not() -> None:
    env = {"OPENAI_API_KEY": "sk-local-123", "GITHUB_TOKEN": "ghp_abcdefgh", "DEBUG_AUTH": "true", "PATH": "/usr/bin"}
    assert sorted(secret_values(env)) == ["ghp_abcdefgh", "sk-local-123"]
    assert os.path.sep == "/"


def test_a_path_is_replaced_only_where_a_path_starts() -> None:
    """With HOME=/root (a container's), neither the closing tag ``</root>`` nor the tail of another
    path (``/srv/root``) is the home folder; ``/root/notes`` and a quoted ``/root`` are."""
    recorded = _places(home="/root").to_cassette('</root> /srv/root/x /root/notes "/root"')
    assert recorded == '</root> /srv/root/x <codex_nb:home>/notes "<codex_nb:home>"'
    assert _places(home="/home/ci").from_cassette(recorded) == '</root> /srv/root/x /home/ci/notes "/home/ci"'
