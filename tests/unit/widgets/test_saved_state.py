"""``saved_state.resend_changed``: what each widget re-sends at a cell's end (no kernel: recorded comms)."""

from __future__ import annotations

import ipywidgets

from codex_nb.widgets import saved_state
from codex_nb.widgets.testing import recording_comms


def test_a_widget_resends_its_state_once_then_only_what_changed() -> None:
    with recording_comms() as comms:
        label = ipywidgets.Label(value="")
        model_id = label.model_id
        comm = next(c for c in comms if c.comm_id == model_id)
        saved_state.resend_changed()
        first = comm.updates()[-1]
        assert first["value"] == "" and "_model_name" not in first  # fixed keys are never re-sent
        label.value = "Turn completed: ok"  # as a background task would, unseen by nbclient
        before = len(comm.updates())
        saved_state.resend_changed()
        assert comm.updates()[before:] == [{"value": "Turn completed: ok"}]
        saved_state.resend_changed()  # nothing changed: nothing sent
        assert len(comm.updates()) == before + 1
        label.close()
        saved_state.resend_changed()
        assert model_id not in saved_state._SENT  # a closed widget is forgotten
