"""Find the native executable that an npm package ships, with one set of checks and error texts.

Codex (``@openai/codex``) and codex-acp (``@zed-industries/codex-acp``) are both published as a
node launcher plus one optional package per platform that holds the real executable. We
always run the NATIVE executable: the launcher is a node process in between, so signals and
process-group ends would reach node rather than the agent. Both the runtime (``cx.CodexAppServer``)
and the test helpers (``codex_nb.testing``) resolve through here, so they accept and refuse the
same paths and say the same thing about how to fix one.

Resolution order: the override variable (``CODEX_BIN``), the pinned install folders (a
``node_modules`` inside each), the name on ``PATH``. A launcher found anywhere is followed to the
native executable installed beside it.
"""

from __future__ import annotations

import os
import platform
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from .._records import record

PLATFORMS: dict[tuple[str, str], tuple[str, str]] = {
    ("Linux", "x64"): ("linux-x64", "x86_64-unknown-linux-musl"),
    ("Linux", "arm64"): ("linux-arm64", "aarch64-unknown-linux-musl"),
    ("Darwin", "x64"): ("darwin-x64", "x86_64-apple-darwin"),
    ("Darwin", "arm64"): ("darwin-arm64", "aarch64-apple-darwin"),
}
"""(``platform.system()``, npm arch) -> (the platform package's suffix, the Rust target triple)."""

_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}
_SCRIPT_HEAD = 256  # enough of a file to read its shebang line


@record(frozen=True, kw_only=True)
class NpmBinary:
    """How one npm-packaged executable is found and how to tell a person to install it."""

    name: str
    """The executable's name (``codex``), also the name looked up on ``PATH``."""
    package: str
    """The npm launcher package (``@openai/codex``); platform packages are ``{package}-{suffix}``."""
    env_var: str
    """The override variable (``CODEX_BIN``): a path to the executable."""
    version: str
    """The version to tell people to install."""
    native_path: Callable[[str], str]
    """The executable's path inside its platform package, given the Rust target triple."""
    error: type[Exception]
    """What a failure raises; the message is one line that says what was looked for and the fix."""
    setup_folder: str
    """The pinned install folder ``bash .ci/setup`` makes in a codex_nb checkout (``.codex-ref``)."""

    def hint(self) -> str:
        return (
            f"set {self.env_var} to the native {self.name} executable "
            f"(`npm install {self.package}@{self.version}` puts it at {self.example_path()}), "
            f"or run `bash .ci/setup` in a codex_nb checkout (it installs the pinned version into {self.setup_folder}/)"
        )

    def example_path(self) -> str:
        suffix, triple = current_platform() or PLATFORMS[("Linux", "x64")]
        return f"node_modules/{self.platform_package(suffix)}/{self.native_path(triple)}"

    def platform_package(self, suffix: str) -> str:
        return f"{self.package}-{suffix}"

    def fail(self, what: str) -> Exception:
        return self.error(f"{what}; {self.hint()}")


def current_platform() -> tuple[str, str] | None:
    """(platform package suffix, target triple) for this machine, or None where npm has no build."""
    arch = _ARCH.get(platform.machine().lower())
    return None if arch is None else PLATFORMS.get((platform.system(), arch))


def _supported(spec: NpmBinary) -> tuple[str, str]:
    found = current_platform()
    if found is None:
        builds = ", ".join(f"{system} {arch}" for system, arch in PLATFORMS)
        raise spec.fail(
            f"{spec.package} has no native build for {platform.system()} {platform.machine()} (it has {builds})"
        )
    return found


def _is_node_script(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            head = handle.read(_SCRIPT_HEAD)
    except OSError:
        return False
    first = head.split(b"\n", 1)[0]
    return first.startswith(b"#!") and b"node" in first


def _describe(path: Path, source: str) -> str | None:
    """Why ``path`` is not an executable file, or None when it is one."""
    try:
        if path.is_symlink() and not path.exists():
            return f"{source} is a broken symlink (to {os.readlink(path)})"
        if not path.exists():
            return f"{source} does not exist"
        if path.is_dir():
            return f"{source} is a directory, not an executable file"
        if not path.is_file():
            return f"{source} is not a regular file"
    except OSError as err:  # a folder on the way we may not read, a name too long, ...
        return f"{source} cannot be inspected ({err.strerror or err})"
    if not os.access(path, os.X_OK):
        return f"{source} is not executable (chmod +x {path})"
    return None


def native_in(spec: NpmBinary, node_modules: Path) -> Path:
    """Where this machine's platform package puts the native executable under ``node_modules``."""
    suffix, triple = _supported(spec)
    return node_modules / spec.platform_package(suffix) / spec.native_path(triple)


def _beside_launcher(spec: NpmBinary, launcher: Path, source: str) -> Path:
    """The native executable of the npm install a launcher script belongs to."""
    script = launcher.resolve()  # node_modules/.bin/codex is a symlink to .../@openai/codex/bin/codex.js
    package_dir = script.parent.parent
    node_modules = package_dir.parents[spec.package.count("/")]
    suffix, triple = _supported(spec)
    inner = spec.native_path(triple)
    candidates = [
        node_modules / spec.platform_package(suffix) / inner,  # npm's flat layout
        package_dir / "node_modules" / spec.platform_package(suffix) / inner,  # nested optional dependency
        package_dir / inner,  # a launcher package with the vendor folder inside
    ]
    for candidate in candidates:
        if _describe(candidate, "") is None and not _is_node_script(candidate):
            return candidate
    raise spec.fail(
        f"{source} is the node launcher of {spec.package}, not the native {spec.name}, and its platform package "
        f"{spec.platform_package(suffix)} is not installed beside it (looked in {node_modules})"
    )


def checked(spec: NpmBinary, path: Path, source: str) -> Path:
    """``path`` if it is the native executable; a launcher is followed to its native executable."""
    problem = _describe(path, source)
    if problem is not None:
        raise spec.fail(problem)
    if _is_node_script(path):
        return _beside_launcher(spec, path, source)
    return path


def pinned_in(spec: NpmBinary, root: Path) -> Path | None:
    """The native executable in a pinned install folder; None when the folder holds no install."""
    node_modules = root / "node_modules"
    scope, _, base = spec.package.rpartition("/")
    scope_dir = node_modules / scope if scope else node_modules
    if not (scope_dir / base).is_dir():
        return None
    suffix, _triple = _supported(spec)
    wanted = spec.platform_package(suffix)
    if not (node_modules / wanted).is_dir():
        others = sorted(f"{scope}/{p.name}" if scope else p.name for p in scope_dir.glob(f"{base}-*") if p.is_dir())
        found = f"has {', '.join(others)}" if others else "has no platform package"
        raise spec.fail(
            f"the pinned install in {root} {found}, not {wanted} that this machine "
            f"({platform.system()} {platform.machine()}) needs: it was installed elsewhere or without optional "
            f"dependencies; rerun the install here"
        )
    return checked(spec, native_in(spec, node_modules), f"the pinned {spec.name} {native_in(spec, node_modules)}")


def resolve(spec: NpmBinary, install_roots: Sequence[Path]) -> Path:
    """The native executable: ``$env_var``, else the first pinned install, else ``PATH``."""
    override = os.environ.get(spec.env_var)
    if override:
        return checked(spec, Path(override).expanduser(), f"{spec.env_var}={override}")
    for root in install_roots:
        found = pinned_in(spec, root)
        if found is not None:
            return found
    on_path = shutil.which(spec.name)
    if on_path:
        return checked(spec, Path(on_path), f"`{spec.name}` on PATH ({on_path})")
    roots = ", ".join(str(r) for r in install_roots) or "none"
    raise spec.fail(
        f"no {spec.name} executable found ({spec.env_var} is unset, no pinned install in {roots}, "
        f"no `{spec.name}` on PATH)"
    )


__all__ = ["PLATFORMS", "NpmBinary", "checked", "current_platform", "native_in", "pinned_in", "resolve"]
