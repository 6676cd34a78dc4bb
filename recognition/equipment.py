"""What each family's equipment produces, for the bias watch (studio/bias.py): the categories a certified
round adds and their probabilities on fair equipment. Pure: no I/O.

- a roulette wheel: its pockets (uniform) and its sectors: the wheel order cut into SECTORS arcs as even as
  possible, each as likely as its pockets together (a tilted wheel or a worn fret shows in a sector first);
- a money wheel: its physical segments (uniform) and its labels (as many chances as segments per label);
- dice: each die's face (1-6, uniform), and per die colour when the camera tells colours apart;
- a ball machine: each ball of the set, as often as any other (a draw of k balls from n adds k);
- a card shoe: each card's rank and suit, against the shoe's composition.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: arcs of a roulette wheel the sector test counts
SECTORS = 8


def uniform(categories: Iterable[str]) -> dict[str, float]:
    cats = list(dict.fromkeys(categories))
    return {c: 1.0 / len(cats) for c in cats} if cats else {}


def weighted(counts: Mapping[str, int]) -> dict[str, float]:
    total = sum(counts.values())
    return {c: n / total for c, n in counts.items() if n > 0} if total else {}


def sectors(order: Sequence[str], parts: int = SECTORS) -> list[tuple[str, ...]]:
    """The wheel order cut into `parts` contiguous arcs, the longer ones first."""
    size, extra = divmod(len(order), parts)
    arcs: list[tuple[str, ...]] = []
    at = 0
    for i in range(parts):
        n = size + (1 if i < extra else 0)
        arcs.append(tuple(order[at : at + n]))
        at += n
    return arcs


def sector_name(arc: Sequence[str]) -> str:
    return " ".join(arc)


def wheel_odds(order: Sequence[str], quantity: str) -> dict[str, float] | None:
    if quantity == "pocket":
        return uniform(order)
    if quantity == "sector":
        return weighted({sector_name(a): len(a) for a in sectors(order)})
    return None


def wheel_reading(order: Sequence[str], pockets: Iterable[str]) -> list[tuple[str, str]]:
    where = {p: sector_name(a) for a in sectors(order) for p in a}
    out: list[tuple[str, str]] = []
    for p in pockets:
        if p in where:
            out += [("pocket", p), ("sector", where[p])]
    return out


def roulette_pockets(result: Mapping[str, Any]) -> list[str]:
    numbers = result.get("numbers")
    if isinstance(numbers, list):
        return [str(n) for n in numbers]
    return [str(result["number"])] if result.get("number") is not None else []


def dice_reading(result: Mapping[str, Any], source: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each die's face; and per colour when the camera read colours (source["read"])."""
    read = source.get("read")
    if isinstance(read, list) and read and all(isinstance(d, dict) for d in read):
        out: list[tuple[str, str]] = []
        for d in read:
            out.append(("face", str(d.get("face"))))
            if d.get("color"):
                out.append((f"face {d['color']}", str(d.get("face"))))
        return out
    faces = result.get("dice")
    if isinstance(faces, list):
        return [("face", str(f)) for f in faces]
    if isinstance(faces, dict):  # a game that groups its dice by side
        return [("face", str(f)) for side in faces.values() if isinstance(side, list) for f in side]
    return []


def dice_odds(quantity: str) -> dict[str, float] | None:
    return (
        uniform(str(f) for f in range(1, 7)) if quantity == "face" or quantity.startswith("face ") else None
    )


def card_odds(copies: Mapping[str, int], quantity: str) -> dict[str, float] | None:
    """Rank or suit of a shoe's cards (two-character codes: rank then suit; jokers and symbols have none)."""
    if quantity not in ("rank", "suit"):
        return None
    pick = 0 if quantity == "rank" else 1
    counts: Counter[str] = Counter()
    for card, n in copies.items():
        if len(card) == 2 and n < 1 << 20:  # a composition not configured counts as unknown, not watched
            counts[card[pick]] += n
    return weighted(counts) or None


def card_reading(source: Mapping[str, Any]) -> list[tuple[str, str]]:
    cards = source.get("cards")
    out: list[tuple[str, str]] = []
    for c in cards if isinstance(cards, list) else ():
        if isinstance(c, str) and len(c) == 2:
            out += [("rank", c[0]), ("suit", c[1])]
    return out
