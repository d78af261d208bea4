"""Record and replay: a real session recorded once to a file, then replayed offline (documentation tests in nbval).

The core is generic: a cassette is a JSONL file of *interactions*, JSON objects whose
schema belongs to the cassette's *kind* (``responses`` for a model's HTTP requests; a
JSON-RPC conversation is another kind). The core owns what every kind shares:

* ``format``: the file format. Line 1 is a header
  ``{"codex_nb_cassette": 1, "kind": "...", "codex_nb_version": "..."}``, then one
  interaction per line. Reading a file that is truncated, hand-edited, foreign or written
  by a newer format is a ``CassetteError`` naming the file and the line, saying whether
  the file can still be read.
* ``modes``: the record modes, named as vcrpy names them (``once``, ``none``,
  ``new_episodes``, ``all``).
* ``store``: ``Cassette``, one file opened in one mode: the recorded interactions to play
  (each at most once), and ``record()``, which writes atomically (temp file +
  ``os.replace``: a crash leaves the old file or a complete new one) under one lock per
  path in the process and a file lock across processes, so two writers never interleave.
* ``normalise``: what a replayed request is compared after (uuids, timestamps, the
  current-time reminder, temp, cwd and home paths, named keys such as ``prompt_cache_key``).
* ``scrub``: secrets masked before anything is written (given values, bearer and
  ``sk-`` shapes, secret-looking header names, user filters).
* ``mismatch_diff``: the short diff a mismatch error shows.

The kinds built on it:

* ``responses_cassette``: ``ResponsesModel(cassette=...)``: a model's HTTP requests and SSE streams.
* ``rpc_cassette``: ``RpcCassette``, a JSON-RPC conversation over stdio (``CodexAppServer(cassette=...)``,
  ``AcpAgent(cassette=...)``), with ``conversation`` (the kind's lines and opening a cassette),
  ``places`` (run-dependent paths as placeholders, secrets masked), ``rpc_recorder`` (keeping a live
  conversation and writing it once) and ``rpc_replay`` (``ReplayedProcess``, which stands in for the
  process and checks what codex_nb sends).

Building a new kind on it::

    cassette = Cassette(path, kind="jsonrpc", record_mode=mode, validate=check_line)
    played = cassette.play(lambda recorded: normalise(recorded["request"]) == normalise(request))
    if played is None and cassette.recording:
        cassette.record(scrubber.scrub({"request": request, "response": response}))
    elif played is None:
        raise cassette.mismatch(request, what="request", key="request")  # diff + re-record hint

``validate(interaction)`` runs on every line at load and returns a problem (``str``) or
``None``; keep it cheap (a 10,000-line cassette loads in about the time ``json.loads``
takes over its lines).

Layer: an adapter, with ``app_server/``, ``acp/``, ``responses/``, ``mcp/``, ``rollouts/`` and
``cassettes/`` (above ``tools/``, which it may import with everything below); ``runtime/`` and the
layers above may import it.
"""
