"""Card games of the seed's list (000:L5) that the seed names but gives no rules for, dealt from the studio's
card shoe with the standard published rules: Red Dog, Top Card Trumps, 32 Cards, Draw Hi-Lo.

Each module is one game (a :class:`recognition.cards.CardGame` deal script) with a module-level ``GAMES``;
docs/games.md says which rules were chosen and why.
"""
