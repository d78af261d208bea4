"""Which characters draw as emoji: on a machine without an emoji font each is an empty box, so no
widget or text fallback may show one (tests/project/test_no_emoji.py, the plan answers browser test)."""

from __future__ import annotations

# Characters drawn as emoji by default (Unicode Emoji_Presentation) in the Basic Multilingual Plane,
# the variation selector that asks for emoji style, and the planes above where most emoji live.
# Text-style symbols the widgets use on purpose (□ ■ ✔ •) are not among them.
_BMP_EMOJI = set(
    "⌚⌛⏩⏪⏫⏬⏰⏳◽◾☔☕♈♉♊♋♌♍♎♏♐♑♒♓♿⚓⚡⚪⚫⚽⚾⛄⛅⛎⛔⛪⛲⛳⛵⛺⛽✅✊✋✨❌❎❓❔❕❗➕➖➗➰➿⬛⬜⭐⭕\ufe0f"
)


def emoji_in(text: str) -> list[str]:
    """The emoji characters of ``text``, in order."""
    return [ch for ch in text if ch in _BMP_EMOJI or 0x1F000 <= ord(ch) <= 0x1FAFF]
