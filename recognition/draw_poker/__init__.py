"""The dealer-banked draw-poker family of seed 000 (L289-515): 5-card poker, 5-card poker with card exchange,
6-card poker and poker with joker, dealt from a shoe as one common player hand against the dealer. Pure.

* :mod:`.hands`: five-card hand values with the joker (a wild card), the dealer's qualification;
* :mod:`.games`: the four games (``GAMES``), their deal scripts, decision windows and payouts.

See docs/draw-poker.md.
"""
